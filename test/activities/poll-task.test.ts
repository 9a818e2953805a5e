// A task's poll attempt (unit test: the platform is a stub answering in turn, the activity runs in the SDK's
// MockActivityEnvironment). A wait that fits the attempt's time is made in the attempt while a waiting place is
// free: a first poll planned a little off, one at the predicted end, and the hints' long steps; any other ends
// the attempt as StillRunning. Counts stay exact: an attempt whose retry could not count its reads records them
// in a heartbeat.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ActivityCancellationDetails, ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  createMediaPollActivities,
  type PollTaskInput,
  type TaskCheckpoint,
} from '../../src/operations/mediaGeneration/activities-poll';
import { limitInAttemptWaits, RETRY_TIMER_LEAD_MS } from '../../src/activities/retries';
import { FailureType } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';

const polling = { minIntervalMs: 500, maxIntervalMs: 30_000, marginMs: 250 };

/** A platform answering each task-result read with the next of `answers` (the last one again after). */
function platformAnswering(answers: Array<{ status: string; eta?: number; progress_percent?: number }>) {
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

/** The wait at the predicted end in these tests is this short; the next poll further off is not. */
const SHORT_MS = 3_000;

/** Runs one attempt of a poll whose checkpoint saw the task PROCESSING; heartbeats are collected. */
async function run(
  platform: PlatformClient,
  info: ConstructorParameters<typeof MockActivityEnvironment>[0],
  since: PollTaskInput['since'],
  pollingOptions = polling,
  during?: (env: MockActivityEnvironment) => void,
  temporal?: Client,
) {
  const env = new MockActivityEnvironment(info);
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => heartbeats.push(d));
  const input: PollTaskInput = { taskId: 't1', polling: pollingOptions, deadlineAt: Date.now() + 3_600_000, since };
  const activities = createMediaPollActivities(platform, temporal);
  during?.(env);
  try {
    const poll = (i: PollTaskInput): Promise<TaskCheckpoint> => activities.pollTaskResult(i);
    return { value: await env.run<[PollTaskInput], TaskCheckpoint, typeof poll>(poll, input), heartbeats };
  } catch (err) {
    if (err instanceof ApplicationFailure) return { failure: err, heartbeats };
    throw err;
  }
}

const processing = (polls: number, extra: Partial<NonNullable<PollTaskInput['since']>> = {}) => ({
  taskId: 't1',
  status: 'TASK_STATUS_PROCESSING',
  polls,
  observedAt: Date.now() - 10_000,
  eta: 1,
  ...extra,
});

/** Attempt 2 of a poll whose checkpoint saw the task PROCESSING after `polls` polls: attempt 1 made one more. */
const attempt = (platform: PlatformClient, polls = 2, pollingOptions = polling) =>
  run(
    platform,
    {
      attempt: 2,
      scheduledTimestampMs: Date.now() - 60_000,
      currentAttemptScheduledTimestampMs: Date.now() - RETRY_TIMER_LEAD_MS,
      startToCloseTimeoutMs: 15_000,
    },
    processing(polls),
    pollingOptions,
  );

/** The first attempt of a poll planned `inMs` from now, with `startToCloseTimeoutMs` to do it in. */
const firstAttempt = (
  platform: PlatformClient,
  inMs: number,
  startToCloseTimeoutMs: number,
  during?: (env: MockActivityEnvironment) => void,
  temporal?: Client,
) =>
  run(
    platform,
    {
      attempt: 1,
      scheduledTimestampMs: Date.now(),
      currentAttemptScheduledTimestampMs: Date.now(),
      startToCloseTimeoutMs,
    },
    processing(1, { nextPollAt: Date.now() + inMs, eta: 20 }),
    polling,
    during,
    temporal,
  );

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** A stub of the client's one call here, the describe of the run that asks whether the read is still wanted. */
const describeAnswering = (answer: (mine: PendingActivity) => Promise<PendingActivity[]>, asked: number[] = []) =>
  ({
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
    workflowService: {
      describeWorkflowExecution: async () => {
        asked.push(Date.now());
        // The mock environment's own activity: its id and first attempt, running.
        return { pendingActivities: await answer({ activityId: 'test', attempt: 1, state: 2 }) };
      },
    },
  }) as unknown as Client;

describe('pollTaskResult', () => {
  afterEach(() => limitInAttemptWaits(1_000));

  it('makes a poll at the predicted end in the same attempt, and counts both reads', async () => {
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
    expect(reads[1] - reads[0]).toBeLessThanOrEqual(SHORT_MS);
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

  it('records the count when a later read of the same attempt finds the end too far off for the attempt', async () => {
    // The end slipped: a second to go, then eight, past the attempt's 15 s. Retries count polls by attempt, so
    // the attempt records its two reads before it ends as StillRunning.
    const { platform, reads } = platformAnswering([
      { status: 'TASK_STATUS_PROCESSING', eta: 1 },
      { status: 'TASK_STATUS_PROCESSING', eta: 8 },
    ]);
    const { failure, heartbeats } = await attempt(platform, 2);
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(reads).toHaveLength(2);
    // Polls 3 and 4 were attempt 1's and this one's first; the second read is the checkpoint's fifth.
    expect(heartbeats).toEqual([{ polls: 3, attempt: 2 }]);
    expect(failure!.details?.[0]).toMatchObject({ status: 'TASK_STATUS_PROCESSING', polls: 5 });
    expect(failure!.nextRetryDelay).toBeGreaterThan(SHORT_MS);
  });

  it('waits in the first attempt for a poll planned within its time, and counts one read', async () => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const startedAt = Date.now();
    const { value, failure, heartbeats } = await firstAttempt(platform, 1_500, 30_000);
    expect(failure).toBeUndefined();
    expect(reads).toHaveLength(1);
    expect(reads[0] - startedAt).toBeGreaterThanOrEqual(1_450);
    expect(value).toMatchObject({ terminal: true, observation: { polls: 2 } });
    expect(heartbeats).toEqual([]);
  });

  it('asks for a retry instead when no waiting place is free, or the wait does not fit the attempt', async () => {
    limitInAttemptWaits(0);
    const full = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const noPlace = await firstAttempt(full.platform, 1_500, 30_000);
    expect(noPlace.failure?.type).toBe(FailureType.StillRunning);
    expect(full.reads).toHaveLength(0);
    limitInAttemptWaits(1_000);
    const short = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const tooLong = await firstAttempt(short.platform, 20_000, 15_000);
    expect(tooLong.failure?.type).toBe(FailureType.StillRunning);
    expect(tooLong.failure?.nextRetryDelay).toBeDefined();
    expect(short.reads).toHaveLength(0);
  });

  it('records its count when it waited and the next poll is left to a retry, which counts on from it', async () => {
    const first = platformAnswering([{ status: 'TASK_STATUS_PROCESSING', eta: 60 }]);
    const one = await firstAttempt(first.platform, 1_500, 30_000);
    expect(one.failure?.type).toBe(FailureType.StillRunning);
    expect(first.reads).toHaveLength(1);
    expect(one.heartbeats).toEqual([{ polls: 1, attempt: 1 }]);
    // The retry starts with that record: its read is the second since the checkpoint.
    const second = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const two = await run(
      second.platform,
      {
        attempt: 2,
        scheduledTimestampMs: Date.now() - 30_000,
        currentAttemptScheduledTimestampMs: Date.now() - RETRY_TIMER_LEAD_MS,
        startToCloseTimeoutMs: 30_000,
        heartbeatDetails: one.heartbeats[0],
      },
      processing(1, { nextPollAt: Date.now() - 29_000, eta: 20 }),
    );
    expect(two.value).toMatchObject({ terminal: true, observation: { polls: 3 } });
    expect(two.heartbeats).toEqual([]);
  });

  it("makes the hints' long steps towards the end in one attempt, and three reads at most", async () => {
    // Planned 1.5 s off: 12 s to go (the next read half-way, 6 s on), then 6 s (the end), then the end slipped.
    const { platform, reads } = platformAnswering([
      { status: 'TASK_STATUS_PROCESSING', eta: 12, progress_percent: 0 },
      { status: 'TASK_STATUS_PROCESSING', eta: 6, progress_percent: 50 },
      { status: 'TASK_STATUS_PROCESSING', eta: 1, progress_percent: 95 },
    ]);
    const { failure, heartbeats } = await firstAttempt(platform, 1_500, 60_000);
    expect(reads).toHaveLength(3);
    expect(reads[1] - reads[0]).toBeGreaterThanOrEqual(5_900);
    expect(failure?.type).toBe(FailureType.StillRunning);
    // The retry could not count them: three reads since the checkpoint, all this attempt's.
    expect(heartbeats).toEqual([{ polls: 3, attempt: 1 }]);
  }, 30_000);

  it('asks the server once, at the end of a wait, whether the read is still wanted, and makes it', async () => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const asked: number[] = [];
    const temporal = describeAnswering((mine) => Promise.resolve([mine]), asked);
    const { value } = await firstAttempt(platform, 2_000, 15_000, undefined, temporal);
    expect(value).toMatchObject({ terminal: true });
    expect(asked).toHaveLength(1);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThanOrEqual(asked[0]);
  });

  it.each([
    ['paused by an operator', (mine: PendingActivity) => [{ ...mine, paused: true }]],
    ['cancelled', (mine: PendingActivity) => [{ ...mine, state: 3 }]],
    ['retried by a later attempt', (mine: PendingActivity) => [{ ...mine, attempt: 2 }]],
    ['ended', () => []],
  ])('ends a wait without reading when its activity was %s meanwhile', async (_, pending) => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const temporal = describeAnswering((mine) => Promise.resolve(pending(mine)));
    const { failure } = await firstAttempt(platform, 2_000, 15_000, undefined, temporal);
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(reads).toHaveLength(0);
  });

  it('reads as planned when the server cannot be asked', async () => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const temporal = describeAnswering(() => Promise.reject(new Error('connection refused')));
    const { value } = await firstAttempt(platform, 2_000, 15_000, undefined, temporal);
    expect(value).toMatchObject({ terminal: true });
    expect(reads).toHaveLength(1);
  });

  it('ends a wait as StillRunning with the time left when the worker shuts down, so another polls on time', async () => {
    const { platform, reads } = platformAnswering([{ status: 'TASK_STATUS_SUCCEED' }]);
    const { failure } = await firstAttempt(platform, 20_000, 60_000, (env) =>
      setTimeout(() => env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true })), 300),
    );
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(reads).toHaveLength(0);
    // Asked early by RETRY_TIMER_LEAD_MS (the server's timer runs late): about 19.7 s less that.
    expect(failure!.nextRetryDelay).toBeGreaterThan(17_000);
    expect(failure!.nextRetryDelay).toBeLessThanOrEqual(19_700);
  });
});
