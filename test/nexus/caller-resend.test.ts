// Unit test of the caller's rule for sending a start again (src/nexus/caller-workflow.ts), no server: only a failure
// its own server made, with a transient status, before any handler answered is sent again.
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
const serverFailure = (message: string, nonRetryable: boolean) => failedWith(new ServerFailure(message, nonRetryable));

describe('undeliveredStart', () => {
  it('is a start the caller server failed with a transient status of its own, as Temporal 1.32 does after a restart', () => {
    // As the fault suite's restart wave saw it: marked non-retryable, though the request never left the server.
    expect(undeliveredStart(serverFailure('Unavailable: no frontend host to route request to', true))).toBe(true);
    expect(undeliveredStart(serverFailure('Unavailable: no frontend host to route request to', false))).toBe(true);
    expect(undeliveredStart(serverFailure('ResourceExhausted: namespace rate limit exceeded', true))).toBe(true);
  });

  it('is not a server failure of another status, a handler refusal, our run failing, or anything else', () => {
    expect(undeliveredStart(serverFailure('InvalidArgument: bad', true))).toBe(false);
    expect(undeliveredStart(serverFailure('NotFound: endpoint not registered', true))).toBe(false);
    expect(undeliveredStart(failedWith(ApplicationFailure.create({ type: 'InvalidInput', nonRetryable: true })))).toBe(
      false,
    );
    expect(undeliveredStart(failedWith(ApplicationFailure.create({ type: 'GenerationFailed' })))).toBe(false);
    expect(undeliveredStart(failedWith())).toBe(false);
    expect(undeliveredStart(new ServerFailure('Unavailable: x', false))).toBe(false);
  });
});
