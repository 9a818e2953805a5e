// pollInstanceStatus, the real activity code in MockActivityEnvironment with a fake platform: one
// get-instance per attempt, doubling gaps across attempts and checkpoints, the statuses seen carried
// along, and the deadline ending the wait even through an outage.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../src/operations/activities-deps';
import { RETRY_TIMER_LEAD_MS, withPlatformFailures } from '../../src/activities/retries';
import {
  createInstanceActivities,
  instanceGapMs,
  type InstanceCheckpoint,
  type InstanceObservation,
  type PollInstanceStatusInput,
} from '../../src/operations/instances/activities';
import { FailureType } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';

const unavailable = new PlatformError({ kind: 'http', status: 503, operation: 'getInstance', message: '503' });

function fakePlatform(answer: string | PlatformError) {
  const calls: string[] = [];
  const platform = {
    config: { timeoutMs: 5_000 },
    getInstance: ({ instanceId }: { instanceId: string }) => {
      calls.push(instanceId);
      return answer instanceof PlatformError
        ? Promise.reject(answer)
        : Promise.resolve({ id: instanceId, status: answer });
    },
  } as unknown as PlatformClient;
  return { platform, calls };
}

const input = (over: Partial<PollInstanceStatusInput> = {}): PollInstanceStatusInput => ({
  instanceId: 'i1',
  target: 'running',
  deadlineAt: Date.now() + 60_000,
  initialIntervalMs: 1_000,
  maxIntervalMs: 8_000,
  ...over,
});

const seen = (dueInMs: number, over: Partial<InstanceObservation> = {}): InstanceObservation => ({
  instanceId: 'i1',
  statuses: ['toRestart', 'restarting'],
  polls: 3,
  observedAt: Date.now() - 500,
  nextPollAt: Date.now() + dueInMs,
  intervalMs: 4_000,
  ...over,
});

async function attempt(
  platform: PlatformClient,
  pollInput: PollInstanceStatusInput,
  attemptNo = 1,
): Promise<{ value?: InstanceCheckpoint; failure?: ApplicationFailure }> {
  // A retry runs when the server meant it to: its poll is due RETRY_TIMER_LEAD_MS after that, now.
  const env = new MockActivityEnvironment({
    attempt: attemptNo,
    scheduledTimestampMs: Date.now(),
    currentAttemptScheduledTimestampMs: Date.now() - RETRY_TIMER_LEAD_MS,
  });
  const activities = withPlatformFailures(createInstanceActivities({ platform } as ActivityDeps));
  try {
    return { value: await env.run((i: PollInstanceStatusInput) => activities.pollInstanceStatus(i), pollInput) };
  } catch (err) {
    if (err instanceof ApplicationFailure) return { failure: err };
    throw err;
  }
}

describe('instanceGapMs', () => {
  it('doubles with each poll up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 60].map((n) => instanceGapMs(1_000, n, 8_000))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });
});

describe('pollInstanceStatus', () => {
  it('checkpoints the first status seen, with the next poll after the initial gap', async () => {
    const { value } = await attempt(fakePlatform('toRestart').platform, input());
    expect(value?.outcome).toBe('changed');
    expect(value?.observation).toMatchObject({ statuses: ['toRestart'], polls: 1, intervalMs: 2_000 });
    expect(value!.observation.nextPollAt! - value!.observation.observedAt).toBe(1_000);
  });

  it('only waits on the first attempt when the next poll is not due yet', async () => {
    const { platform, calls } = fakePlatform('restarting');
    const since = seen(3_000);
    const { failure } = await attempt(platform, input({ since }));
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(failure?.details).toEqual([since]);
    // Asked for a second early: the server's retry timers run late by up to that.
    expect(Number(failure?.nextRetryDelay)).toBeGreaterThan(1_500);
    expect(Number(failure?.nextRetryDelay)).toBeLessThanOrEqual(2_000);
    expect(calls).toEqual([]);
  });

  it('fails the same status as StillRunning with the doubled gap, carrying the statuses', async () => {
    // Attempt 3 after a waiting first one: the second poll since the checkpoint, 4 s × 2.
    const { failure } = await attempt(fakePlatform('restarting').platform, input({ since: seen(3_000) }), 3);
    expect(failure?.type).toBe(FailureType.StillRunning);
    expect(failure?.nextRetryDelay).toBe(8_000 - RETRY_TIMER_LEAD_MS);
    expect(failure?.details?.[0]).toMatchObject({ statuses: ['toRestart', 'restarting'], polls: 5 });
  });

  it('returns the target as reached, with every status seen', async () => {
    const { value } = await attempt(fakePlatform('running').platform, input({ since: seen(0) }));
    expect(value).toMatchObject({
      outcome: 'reached',
      observation: { statuses: ['toRestart', 'restarting', 'running'] },
    });
  });

  it('never plans a poll past the deadline, and the poll at the deadline is the last', async () => {
    const near = await attempt(
      fakePlatform('restarting').platform,
      input({ since: seen(0), deadlineAt: Date.now() + 1_500 }),
    );
    expect(Number(near.failure?.nextRetryDelay)).toBeLessThanOrEqual(1_500 - RETRY_TIMER_LEAD_MS);
    const past = await attempt(
      fakePlatform('restarting').platform,
      input({ since: seen(0), deadlineAt: Date.now() - 1 }),
    );
    expect(past.value).toMatchObject({ outcome: 'timedOut', observation: { statuses: ['toRestart', 'restarting'] } });
  });

  it('retries a failed poll until the deadline, however many attempts, then times out', async () => {
    for (const n of [1, 12, 300]) {
      const { failure } = await attempt(fakePlatform(unavailable).platform, input({ since: seen(0) }), n);
      expect(failure).toMatchObject({ type: FailureType.PlatformUnavailable, nonRetryable: false });
      expect(Number(failure?.nextRetryDelay)).toBeGreaterThanOrEqual(1);
      expect(Number(failure?.nextRetryDelay)).toBeLessThanOrEqual(8_000 - RETRY_TIMER_LEAD_MS);
    }
    const { value } = await attempt(
      fakePlatform(unavailable).platform,
      input({ since: seen(0), deadlineAt: Date.now() - 1 }),
      40,
    );
    expect(value).toMatchObject({
      outcome: 'timedOut',
      observation: { statuses: ['toRestart', 'restarting'], polls: 43 },
    });
  });

  it('ends on a final error', async () => {
    const missing = new PlatformError({
      kind: 'http',
      status: 400,
      reason: 'RESOURCE_NOT_FOUND',
      operation: 'getInstance',
      message: 'not found',
    });
    const { failure } = await attempt(fakePlatform(missing).platform, input());
    expect(failure).toMatchObject({ type: FailureType.NotFound, nonRetryable: true });
  });
});
