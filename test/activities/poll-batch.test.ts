// pollBatch, the real activity code in MockActivityEnvironment with a fake platform: one get-batch per
// attempt, the growing gaps carried across attempts and checkpoints, what ends an attempt as
// StillRunning and what returns a checkpoint.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../src/operations/activities-deps';
import {
  batchGapMs,
  createBatchActivities,
  type BatchCheckpoint,
  type PollBatchInput,
} from '../../src/operations/batchJob/activities';
import { RETRY_TIMER_LEAD_MS, withPlatformFailures } from '../../src/activities/retries';
import { type BatchObservation, FailureType } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';

const polling = { initialIntervalMs: 2_000, backoffCoefficient: 1.5, maxIntervalMs: 10_000 };
const counts = (completed: number, failed = 0, total = 100) => ({ total, completed, failed });

function fakePlatform(answers: Array<{ status: string; done?: number } | PlatformError>) {
  const calls: string[] = [];
  const platform = {
    config: { timeoutMs: 5_000 },
    getBatch: (batchId: string) => {
      calls.push(batchId);
      const a = answers.shift() ?? answers[answers.length - 1];
      if (a instanceof PlatformError) return Promise.reject(a);
      return Promise.resolve({
        id: batchId,
        endpoint: '/v1/chat/completions',
        input_file_id: 'file-1',
        status: a.status,
        created_at: 1_700_000_000,
        request_counts: counts(a.done ?? 0),
        output_file_id: a.status === 'COMPLETED' ? 'out-1' : null,
      });
    },
  } as unknown as PlatformClient;
  return { platform, calls };
}

/** A checkpoint whose next poll is `dueInMs` away, with `intervalMs` the gap after that poll. */
const since = (dueInMs: number, over: Partial<BatchObservation> = {}): BatchObservation => ({
  batchId: 'b1',
  status: 'PROGRESS',
  requestCounts: counts(5),
  polls: 4,
  observedAt: Date.now() - 1_000,
  nextPollAt: Date.now() + dueInMs,
  intervalMs: 3_000,
  ...over,
});

async function attempt(
  platform: PlatformClient,
  input: PollBatchInput,
  attemptNo = 1,
): Promise<{ value?: BatchCheckpoint; failure?: ApplicationFailure }> {
  // A retry runs when the server meant it to: its poll is due RETRY_TIMER_LEAD_MS after that, now.
  const env = new MockActivityEnvironment({
    attempt: attemptNo,
    scheduledTimestampMs: Date.now(),
    currentAttemptScheduledTimestampMs: Date.now() - RETRY_TIMER_LEAD_MS,
  });
  const activities = withPlatformFailures(createBatchActivities({ platform } as ActivityDeps));
  try {
    return { value: await env.run((i: PollBatchInput) => activities.pollBatch(i), input) };
  } catch (err) {
    if (err instanceof ApplicationFailure) return { failure: err };
    throw err;
  }
}

describe('batchGapMs', () => {
  it('grows by the coefficient with each poll, rounded at each step, up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => batchGapMs(2_000, n, polling))).toEqual([
      2_000, 3_000, 4_500, 6_750, 10_000, 10_000,
    ]);
    expect(batchGapMs(15_000, 1, polling)).toBe(10_000);
    expect(batchGapMs(2_000, 5_000, { ...polling, backoffCoefficient: 1 })).toBe(2_000);
  });
});

describe('pollBatch', () => {
  it('only waits on the first attempt when the next poll is not due yet', async () => {
    const { platform, calls } = fakePlatform([{ status: 'PROGRESS', done: 5 }]);
    const from = since(5_000);
    const { failure } = await attempt(platform, { batchId: 'b1', polling, since: from, progressStep: 10 });
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(failure?.nonRetryable).toBe(false);
    // Asked for a second early: the server's retry timers run late by up to that.
    expect(Number(failure?.nextRetryDelay)).toBeGreaterThan(3_500);
    expect(Number(failure?.nextRetryDelay)).toBeLessThanOrEqual(4_000);
    expect(failure?.details).toEqual([from]);
    expect(calls).toEqual([]);
  });

  it('polls once per attempt; nothing new fails as StillRunning with the grown gap and the facts', async () => {
    const { platform, calls } = fakePlatform([{ status: 'PROGRESS', done: 7 }]);
    // Attempt 4 after a waiting first one: the third poll since the checkpoint, 3 s × 1.5²
    const { failure } = await attempt(platform, { batchId: 'b1', polling, since: since(5_000), progressStep: 10 }, 4);
    expect(calls).toEqual(['b1']);
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(failure?.nextRetryDelay).toBe(6_750 - RETRY_TIMER_LEAD_MS);
    const [o] = failure!.details as BatchObservation[];
    expect(o).toMatchObject({ status: 'PROGRESS', requestCounts: counts(7), polls: 7, intervalMs: 10_000 });
    expect(o.nextPollAt! - o.observedAt).toBe(6_750);
  });

  it('waits out a poll due within the lead itself, then polls on time', async () => {
    const { platform, calls } = fakePlatform([{ status: 'PROGRESS', done: 5 }]);
    const from = since(300);
    const { failure } = await attempt(platform, { batchId: 'b1', polling, since: from, progressStep: 10 });
    expect(calls).toEqual(['b1']);
    const [o] = failure!.details as BatchObservation[];
    expect(o.observedAt).toBeGreaterThanOrEqual(from.nextPollAt!);
    expect(o.polls).toBe(5);
  });

  it('returns a checkpoint at a status change and at each progress step', async () => {
    const due = since(0, { status: 'VALIDATING', requestCounts: counts(0) });
    const changed = await attempt(fakePlatform([{ status: 'PROGRESS' }]).platform, {
      batchId: 'b1',
      polling,
      since: due,
      progressStep: 10,
    });
    expect(changed.value).toMatchObject({ terminal: false, observation: { status: 'PROGRESS', polls: 5 } });
    expect(changed.value!.observation).toMatchObject({ intervalMs: 4_500 });

    const stepped = await attempt(fakePlatform([{ status: 'PROGRESS', done: 10 }]).platform, {
      batchId: 'b1',
      polling,
      since: since(0),
      progressStep: 10,
    });
    expect(stepped.value).toMatchObject({ terminal: false, observation: { requestCounts: counts(10) } });

    // Step 0: status changes only.
    const quiet = await attempt(fakePlatform([{ status: 'PROGRESS', done: 90 }]).platform, {
      batchId: 'b1',
      polling,
      since: since(0),
      progressStep: 0,
    });
    expect(quiet.failure?.type).toBe(FailureType.StillRunning);
  });

  it('returns the end as a terminal checkpoint with its files', async () => {
    const { value } = await attempt(fakePlatform([{ status: 'COMPLETED', done: 100 }]).platform, {
      batchId: 'b1',
      polling,
      since: since(0),
      progressStep: 10,
    });
    expect(value).toMatchObject({ terminal: true, observation: { status: 'COMPLETED', outputFileId: 'out-1' } });
    expect(value!.observation.nextPollAt).toBeUndefined();
  });

  it('retries a failed poll however many attempts it takes, never longer apart than the maximum gap', async () => {
    const unavailable = new PlatformError({ kind: 'http', status: 503, operation: 'getBatch', message: '503' });
    for (const n of [1, 5, 40, 500]) {
      const { failure } = await attempt(
        fakePlatform([unavailable]).platform,
        { batchId: 'b1', polling, since: since(0), progressStep: 10 },
        n,
      );
      expect(failure?.type).toBe(FailureType.PlatformUnavailable);
      expect(failure?.nonRetryable).toBe(false);
      expect(Number(failure?.nextRetryDelay)).toBeGreaterThanOrEqual(polling.initialIntervalMs - RETRY_TIMER_LEAD_MS);
      expect(Number(failure?.nextRetryDelay)).toBeLessThanOrEqual(polling.maxIntervalMs - RETRY_TIMER_LEAD_MS);
    }
    // A Retry-After longer than the maximum gap is honoured.
    const limited = new PlatformError({
      kind: 'http',
      status: 429,
      operation: 'getBatch',
      message: '429',
      retryAfterMs: 60_000,
    });
    const { failure } = await attempt(fakePlatform([limited]).platform, {
      batchId: 'b1',
      polling,
      since: since(0),
      progressStep: 10,
    });
    expect(failure).toMatchObject({ type: FailureType.RateLimited, nextRetryDelay: 60_000 - RETRY_TIMER_LEAD_MS });
  });

  it('ends on a final error', async () => {
    const missing = new PlatformError({ kind: 'http', status: 404, operation: 'getBatch', message: '404' });
    const { failure } = await attempt(fakePlatform([missing]).platform, {
      batchId: 'b1',
      polling,
      since: since(0),
      progressStep: 10,
    });
    expect(failure).toMatchObject({ type: FailureType.NotFound, nonRetryable: true });
  });
});
