// The submit's first look: one read of the task just accepted, a planned next poll when it runs, and
// nothing (never an error) when the read fails or the task has already ended.
import { firstLook } from '../../src/operations/mediaGeneration/activities-poll';
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';

const polling = { minIntervalMs: 1_000, maxIntervalMs: 30_000, marginMs: 250 };

function platformAnswering(answer: () => Promise<unknown>): PlatformClient {
  return { config: { timeoutMs: 30_000 }, getTaskResult: answer } as unknown as PlatformClient;
}

const signal = () => new AbortController().signal;

describe('firstLook', () => {
  it('observes a running task as its first poll, with the next poll planned from its eta', async () => {
    const platform = platformAnswering(() => Promise.resolve({ task: { status: 'TASK_STATUS_PROCESSING', eta: 5 } }));
    const { observation: look, reads } = await firstLook(platform, 't1', polling, signal());
    expect(reads).toBe(1);
    expect(look).toMatchObject({ taskId: 't1', status: 'TASK_STATUS_PROCESSING', eta: 5, polls: 1 });
    expect(look!.firstProcessingAt).toBe(look!.observedAt);
    expect(look!.nextPollAt! - look!.observedAt).toBe(5_250);
  });

  it('leaves an ended task to the wait, and counts the read', async () => {
    const platform = platformAnswering(() => Promise.resolve({ task: { status: 'TASK_STATUS_SUCCEED' } }));
    await expect(firstLook(platform, 't1', polling, signal())).resolves.toEqual({ reads: 1 });
  });

  it('gives no observation, and throws nothing, when the read fails; the read still counts', async () => {
    const platform = platformAnswering(() =>
      Promise.reject(
        new PlatformError({ kind: 'timeout', operation: 'getTaskResult', maybeDelivered: false, message: 'x' }),
      ),
    );
    await expect(firstLook(platform, 't1', polling, signal())).resolves.toEqual({ reads: 1 });
  });
});
