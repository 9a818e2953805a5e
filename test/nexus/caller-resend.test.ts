// Unit test of the caller's rule for sending a start again (src/nexus/caller-workflow.ts), no server: only a failure
// its own server made before any handler answered is sent again.
import { ApplicationFailure, NexusOperationFailure, ServerFailure } from '@temporalio/common';
import { undeliveredStart } from '../../src/nexus/caller-workflow';

const failedWith = (cause?: Error) =>
  new NexusOperationFailure(
    'nexus operation completed unsuccessfully',
    5,
    'ep',
    'platformOps',
    'mediaGeneration',
    undefined,
    cause,
  );

describe('undeliveredStart', () => {
  it('is a start the caller server failed retryably: "Unavailable: no frontend host to route request to"', () => {
    expect(
      undeliveredStart(failedWith(new ServerFailure('Unavailable: no frontend host to route request to', false))),
    ).toBe(true);
  });

  it('is not a server failure marked non-retryable, a handler refusal, our run failing, or anything else', () => {
    expect(undeliveredStart(failedWith(new ServerFailure('InvalidArgument: bad', true)))).toBe(false);
    expect(undeliveredStart(failedWith(ApplicationFailure.create({ type: 'InvalidInput', nonRetryable: true })))).toBe(
      false,
    );
    expect(undeliveredStart(failedWith(ApplicationFailure.create({ type: 'GenerationFailed' })))).toBe(false);
    expect(undeliveredStart(failedWith())).toBe(false);
    expect(undeliveredStart(new ServerFailure('Unavailable: x', false))).toBe(false);
  });
});
