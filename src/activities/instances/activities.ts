// GPU instance activities: thin wrappers over the platform client, and the wait for a status after
// acting on an instance (pollInstanceStatus).
import { Context, log } from '@temporalio/activity';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { toApplicationFailure } from '../failures';
import { findAfterEarlierAttempts, inFlightSettleMs, sendCostly } from '../in-flight';
import { awaitPollTurn, errorBackoffMs, POLL_TIMEOUT_MS, pollAgainIn, retryDelayFor } from '../poll-again';
import type { ActivityDeps } from '..';
import { createInstanceLifecycleActivities } from './lifecycle';

export interface InstanceSnapshot {
  id: string;
  status: string;
  endTime?: string | number;
  statusError?: { state?: string; message?: string } | null;
}

export interface RenewOnPlatformInput {
  instanceId: string;
  months: number;
  /** The expiry read before the first attempt: lets a retry see that the renewal already happened. */
  endTimeBefore?: string | number;
}

/** What the polls of an instance have seen so far: a checkpoint, and each poll's failure details. */
export interface InstanceObservation {
  instanceId: string;
  /** Every status seen, in order, without repeats in a row. */
  statuses: string[];
  /** Requests made, failed ones included. */
  polls: number;
  /** Epoch ms of the last answer (0 before the first). */
  observedAt: number;
  /** When the next poll is due. */
  nextPollAt?: number;
  /** The gap after that poll: it doubles up to the maximum. */
  intervalMs?: number;
}

export interface PollInstanceStatusInput {
  instanceId: string;
  target: string;
  /** Real epoch ms after which the wait ends as timed out (the workflow fixes it from its own clock). */
  deadlineAt: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  /** The last checkpoint; none before the first poll. */
  since?: InstanceObservation;
}

export interface InstanceCheckpoint {
  observation: InstanceObservation;
  /** `changed`: a new status, the wait goes on; `reached`: the target; `timedOut`: the deadline passed. */
  outcome: 'changed' | 'reached' | 'timedOut';
}

/** The gap after the n-th poll since a checkpoint whose next gap is `firstMs`: doubling, up to `maxMs`. */
export function instanceGapMs(firstMs: number, n: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(n - 1, 0), 30));
}

export function createInstanceActivities(platform: PlatformClient) {
  const signal = () => Context.current().cancellationSignal;

  return {
    async getInstance(instanceId: string): Promise<InstanceSnapshot> {
      const inst = await platform.getInstance({ instanceId }, { signal: signal() });
      // Only what the workflows use goes into history.
      return { id: inst.id, status: inst.status, endTime: inst.endTime, statusError: inst.statusError };
    },

    /**
     * Renewing costs money, so a retry must not renew twice. The platform takes no idempotency key; the
     * proof that an earlier attempt got through is an expiry that moved since the workflow first read
     * it. A retry watches for that until no earlier request can still land (./in-flight.ts), so a
     * renewal the platform applies late, after our client gave up on it, is not paid for again.
     */
    async renewInstance(input: RenewOnPlatformInput): Promise<{ alreadyApplied: boolean }> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const { instanceId, endTimeBefore } = input;
      if (endTimeBefore !== undefined) {
        const applied = await findAfterEarlierAttempts(ctx, inFlightSettleMs(platform.config.timeoutMs), async () => {
          const now = await platform.getInstance({ instanceId }, { signal: signal() });
          return String(now.endTime) !== String(endTimeBefore) ? true : undefined;
        });
        if (applied) {
          log.info('Renewal already applied by an earlier attempt', { instanceId, attempt });
          return { alreadyApplied: true };
        }
      }
      await sendCostly(ctx, () => platform.renewInstance({ instanceId, months: input.months }, { signal: signal() }));
      return { alreadyApplied: false };
    },

    async restartInstance(instanceId: string): Promise<void> {
      await platform.restartInstance({ instanceId }, { signal: signal() });
    },

    /**
     * One get-instance poll per attempt (retry-as-poll, see ./poll-again.ts): the same status again
     * fails as StillRunning with the next gap, so the server runs the poll again then; a new status,
     * the target or the deadline returns a checkpoint. The gaps double from initialIntervalMs to
     * maxIntervalMs across attempts and checkpoints (a gap under about a second lasts about a second:
     * the server's retry timers are no finer).
     */
    async pollInstanceStatus(input: PollInstanceStatusInput): Promise<InstanceCheckpoint> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const { since, deadlineAt, instanceId } = input;
      // This attempt's poll is the n-th since the checkpoint; every request counts, failed ones too.
      const n = await awaitPollTurn(ctx, instanceId, since, deadlineAt);
      const polls = (since?.polls ?? 0) + n;
      const statuses = since?.statuses ?? [];

      let status: string;
      try {
        const inst = await platform.getInstance(
          { instanceId },
          { signal: ctx.cancellationSignal, timeoutMs: Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs) },
        );
        status = inst.status;
      } catch (err) {
        // A poll is a read: a passing fault is retried until the deadline, however long the outage.
        if (!(err instanceof PlatformError) || !err.retryable) throw err;
        const now = Date.now();
        const observation = { ...(since ?? { instanceId, statuses, observedAt: 0 }), polls };
        if (now >= deadlineAt) return { observation, outcome: 'timedOut' };
        // Jittered, yet never longer apart than the polls themselves (unless the platform asks).
        const backoff = Math.min(
          errorBackoffMs(err, attempt, input.initialIntervalMs),
          Math.max(input.maxIntervalMs, err.retryAfterMs ?? 0),
        );
        throw toApplicationFailure(err, { nextRetryDelayMs: retryDelayFor(Math.min(backoff, deadlineAt - now)) });
      }

      const now = Date.now();
      const changed = statuses[statuses.length - 1] !== status;
      const observation: InstanceObservation = {
        instanceId,
        statuses: changed ? [...statuses, status] : statuses,
        polls,
        observedAt: now,
      };
      if (status === input.target) return { observation, outcome: 'reached' };
      // The poll due at the deadline is the last one.
      if (now >= deadlineAt) return { observation, outcome: 'timedOut' };
      const gap = instanceGapMs(since?.intervalMs ?? input.initialIntervalMs, n, input.maxIntervalMs);
      const delay = Math.max(1, Math.min(gap, deadlineAt - now));
      const next: InstanceObservation = {
        ...observation,
        nextPollAt: now + delay,
        intervalMs: Math.min(input.maxIntervalMs, gap * 2),
      };
      if (changed) return { observation: next, outcome: 'changed' };
      throw pollAgainIn(delay, `${instanceId} is ${status} (${polls} polls): next poll in ${delay} ms`, next);
    },
  };
}

export function createActivities({ platform }: ActivityDeps) {
  return { ...createInstanceActivities(platform), ...createInstanceLifecycleActivities(platform) };
}
export type Activities = ReturnType<typeof createActivities>;
