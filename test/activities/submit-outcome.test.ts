// A failed submit's outcome is decided once, in the activity: its failure carries it in its details,
// typed as before (so runs recorded before it still read the same), and the workflow acts on it.
import { ActivityNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../src/operations/activities-deps';
import { createMediaActivities, type SubmitFailureDetails } from '../../src/operations/mediaGeneration/activities';
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError, type PlatformErrorInit } from '../../src/platform-client/errors';

const refusing = (init: Partial<PlatformErrorInit>): PlatformClient =>
  ({
    submitTextToVideo: () =>
      Promise.reject(new PlatformError({ kind: 'http', operation: 'submitTextToVideo', message: 'm', ...init })),
  }) as unknown as PlatformClient;

/**
 * A stub of the Temporal client's part the submit uses before sending: it records the sending mark (a
 * heartbeat), or refuses it as a server that timed the attempt out would.
 */
function temporalMarking(marks: unknown[], refuse = false): Client {
  return {
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
    activity: {
      heartbeat: (_token: Uint8Array, details: unknown) => {
        if (refuse) return Promise.reject(new ActivityNotFoundError('activity not found'));
        marks.push(details);
        return Promise.resolve();
      },
    },
  } as unknown as Client;
}

async function failureOf(platform: PlatformClient, temporal = temporalMarking([])): Promise<ApplicationFailure> {
  const activities = createMediaActivities({ platform, temporal } as ActivityDeps);
  const polling = { minIntervalMs: 1_000, maxIntervalMs: 30_000, marginMs: 250 };
  const input = { operation: 'text-to-video', request: { prompt: 'x' }, generation: 1, attempt: 1, polling } as const;
  const submit = (i: typeof input) => activities.submitMediaTask(i);
  const err: unknown = await new MockActivityEnvironment().run(submit, input).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
  return err;
}

describe('submitMediaTask failure outcome', () => {
  it.each([
    [
      'refused, rate limited',
      { status: 429, reason: 'RATE_LIMIT_EXCEEDED', retryAfterMs: 2_000 },
      'refused',
      'RateLimited',
    ],
    ['refused, the platform down', { status: 503, reason: 'SERVICE_UNAVAILABLE' }, 'refused', 'PlatformUnavailable'],
    ['ambiguous', { status: 502 }, 'ambiguous', 'AmbiguousSubmission'],
    ['rejected', { status: 400, reason: 'INVALID_REQUEST_BODY' }, 'rejected', 'InvalidInput'],
  ] as const)('%s', async (_name, init, outcome, type) => {
    const failure = await failureOf(refusing(init));
    const details = failure.details?.[0] as SubmitFailureDetails;
    expect(details.outcome).toBe(outcome);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(outcome === 'rejected');
    if (outcome === 'rejected') {
      // The final failure every activity raises for the error, with the outcome added.
      expect(details).toMatchObject({ kind: 'http', status: 400, reason: 'INVALID_REQUEST_BODY' });
    } else {
      expect(details).toMatchObject({ at: expect.any(Number), status: init.status });
      if ('retryAfterMs' in init) expect(details.retryAfterMs).toBe(init.retryAfterMs);
    }
  });

  it('sends nothing when the server does not record the sending mark, and says so as refused', async () => {
    let sent = 0;
    const platform = {
      submitTextToVideo: () => {
        sent++;
        return Promise.resolve({ task_id: 't1' });
      },
    } as unknown as PlatformClient;
    const failure = await failureOf(platform, temporalMarking([], true));
    expect(sent).toBe(0);
    expect((failure.details?.[0] as SubmitFailureDetails).outcome).toBe('refused');
    expect(failure.type).toBe('TemporalUnavailable');
    expect(failure.nonRetryable).toBe(false);
  });

  it('records the sending mark before it sends', async () => {
    const marks: unknown[] = [];
    const failure = await failureOf(refusing({ status: 503, reason: 'SERVICE_UNAVAILABLE' }), temporalMarking(marks));
    expect(failure.type).toBe('PlatformUnavailable');
    expect(marks).toEqual([{ sendingAt: expect.any(Number) }]);
  });
});
