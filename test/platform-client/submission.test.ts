// Which failed submits may have created a paid task: the table the submit-once policy rests on.
import { classifySubmitFailure, PlatformError, type PlatformErrorInit } from '../../src/platform-client/errors';

const err = (init: Partial<PlatformErrorInit>) =>
  new PlatformError({ kind: 'http', operation: 'submitTextToVideo', message: 'm', ...init });

describe('classifySubmitFailure', () => {
  it.each([
    ['refused: 429', err({ status: 429, reason: 'RATE_LIMIT_EXCEEDED' }), 'refused'],
    ['refused: the platform\u2019s own 500', err({ status: 500, reason: 'INTERNAL_ERROR' }), 'refused'],
    ['refused: the platform\u2019s own 503', err({ status: 503, reason: 'SERVICE_UNAVAILABLE' }), 'refused'],
    ['ambiguous: a 500 without the platform body', err({ status: 500 }), 'ambiguous'],
    ['ambiguous: 502 from a gateway', err({ status: 502, reason: 'BAD_GATEWAY' }), 'ambiguous'],
    ['ambiguous: 504', err({ status: 504 }), 'ambiguous'],
    ['ambiguous: 408', err({ status: 408 }), 'ambiguous'],
    ['ambiguous: timeout after sending', err({ kind: 'timeout', maybeDelivered: true }), 'ambiguous'],
    ['refused: connection refused', err({ kind: 'network', maybeDelivered: false }), 'refused'],
    ['ambiguous: reset after sending', err({ kind: 'network', maybeDelivered: true }), 'ambiguous'],
    ['ambiguous: a garbled 2xx', err({ kind: 'malformed_response', maybeDelivered: true }), 'ambiguous'],
    ['rejected: bad input', err({ status: 400, reason: 'INVALID_REQUEST_BODY' }), 'rejected'],
    ['rejected: no money', err({ status: 400, reason: 'BILLING_BALANCE_NOT_ENOUGH' }), 'rejected'],
    ['rejected: bad key', err({ status: 401 }), 'rejected'],
    ['rejected: refused before sending', err({ kind: 'invalid_request' }), 'rejected'],
  ])('%s', (_name, error, expected) => {
    expect(classifySubmitFailure(error)).toBe(expected);
  });
});
