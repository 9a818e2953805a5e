// A task's poll attempt (unit test: the platform is a stub answering in turn, the activity runs in the SDK's
// MockActivityEnvironment). A poll at the predicted end due within IN_ATTEMPT_WAIT_MS is made in the same
// attempt, counted; any other ends the attempt as StillRunning; after a second read, the workflow gets the count.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createMediaPollActivities, type PollTaskInput, type TaskCheckpoint } from '../../src/activities/media/poll';
import { IN_ATTEMPT_WAIT_MS, RETRY_TIMER_LEAD_MS } from '../../src/activities/retries';
import { FailureType } from '../../src/api/failures';
import type { PlatformClient } from '../../src/platform-client/client';

const polling = { minIntervalMs: 500, maxIntervalMs: 30_000, marginMs: 250 };

/** A platform answering each task-result read with the next of `answers` (the last one again after). */
function platformAnswering(answers: Array<{ status: string; eta?: number }>) {
  const reads: number[] = [];
  const platform = {
    config: { timeoutMs: 30_000 },
    getTaskResult: () => {
      reads.push(Date.now());
      const task = answers[Math.min(reads.length - 1, answers.length - 1)];
      return Promise.resolve({
        task,
        videos: [{ video_url: 'https://cdn.example/v.mp4', video_url_ttl: '3600' }],
        images: [],
        audios: [],
      });
    },
  } as unknown as PlatformClient;
  return { platform, reads };
}

/** Attempt 2 of a poll whose checkpoint saw the task PROCESSING after `polls` polls: attempt 1 made one more. */
async function attempt(platform: PlatformClient, polls = 2, pollingOptions = polling) {
  const env = new MockActivityEnvironment({
    attempt: 2,
    scheduledTimestampMs: Date.now() - 60_000,
    currentAttemptScheduledTimestampMs: Date.now() - RETRY_TIMER_LEAD_MS,
    startToCloseTimeoutMs: 15_000,
  });
  const input: PollTaskInput = {
    taskId: 't1',
    polling: pollingOptions,
    deadlineAt: Date.now() + 3_600_000,
    since: { taskId: 't1', status: 'TASK_STATUS_PROCESSING', polls, observedAt: Date.now() - 10_000, eta: 1 },
  };
  const activities = createMediaPollActivities(platform);
  try {
    const poll = (i: PollTaskInput): Promise<TaskCheckpoint> => activities.pollTaskResult(i);
    return { value: await env.run<[PollTaskInput], TaskCheckpoint, typeof poll>(poll, input) };
  } catch (err) {
    if (err instanceof ApplicationFailure) return { failure: err };
    throw err;
  }
}

describe('pollTaskResult', () => {
  it('makes a poll due within IN_ATTEMPT_WAIT_MS in the same attempt, and counts both reads', async () => {
    // Just past its predicted end the task still runs, with a second to go; the next read sees it done.
    const { platform, reads } = platformAnswering([
      { status: 'TASK_STATUS_PROCESSING', eta: 1 },
      { status: 'TASK_STATUS_SUCCEED' },
    ]);
    const { value, failure } = await attempt(platform, 2);
    expect(failure).toBeUndefined();
    expect(value).toMatchObject({ terminal: true, observation: { status: 'TASK_STATUS_SUCCEED', polls: 5 } });
    expect(value!.outputs).toHaveLength(1);
    expect(reads).toHaveLength(2);
    expect(reads[1] - reads[0]).toBeGreaterThanOrEqual(1_000);
    expect(reads[1] - reads[0]).toBeLessThanOrEqual(IN_ATTEMPT_WAIT_MS);
  });

  it('ends the attempt as StillRunning when the next poll is further off, after one read', async () => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_PROCESSING', eta: 8 }]);
    const { value, failure } = await attempt(platform, 2);
    expect(value).toBeUndefined();
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(failure?.nextRetryDelay).toBeDefined();
    expect(reads).toHaveLength(1);
  });

  it('leaves a short gap that is not the predicted end to a retry, so a cancel stops it at once', async () => {
    // Polling every 200 ms (maxIntervalMs) a task ten minutes from its end: each poll is its own attempt.
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_PROCESSING', eta: 600 }]);
    const { value, failure } = await attempt(platform, 2, { minIntervalMs: 100, maxIntervalMs: 200, marginMs: 0 });
    expect(value).toBeUndefined();
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(reads).toHaveLength(1);
  });

  it('gives the workflow the exact count when a later read of the same attempt finds the end further off', async () => {
    // The end slipped: a second to go, then eight. Retries count polls by attempt, so the second read's
    // count would be lost in a StillRunning failure: the attempt returns a checkpoint instead.
    const { platform, reads } = platformAnswering([
      { status: 'TASK_STATUS_PROCESSING', eta: 1 },
      { status: 'TASK_STATUS_PROCESSING', eta: 8 },
    ]);
    const { value, failure } = await attempt(platform, 2);
    expect(failure).toBeUndefined();
    expect(reads).toHaveLength(2);
    expect(value).toMatchObject({ terminal: false, observation: { status: 'TASK_STATUS_PROCESSING', polls: 5 } });
    expect(value!.observation.nextPollAt! - value!.observation.observedAt).toBeGreaterThan(IN_ATTEMPT_WAIT_MS);
  });
});
