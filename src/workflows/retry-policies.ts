// Retry policies and activity options of the workflows' activities, in one place.
import { RetryState } from '@temporalio/common';
import {
  ActivityCancellationType,
  ActivityFailure,
  type ActivityOptions,
  type RetryPolicy,
  TimeoutFailure,
} from '@temporalio/workflow';

/**
 * Retry-as-poll activities (src/activities/poll-again.ts): each attempt sets its own next delay, so
 * this policy applies only to an attempt that ends without one (a lost worker, a bug). No attempt
 * count: the operation's deadline, the activity's schedule-to-close timeout, is the only bound.
 */
export const RETRY_AS_POLL: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '5m',
};

/** Past its deadline a poll activity fails by itself; the server's bound is this much later, for a lost worker. */
const DEADLINE_GRACE_MS = 60_000;

/**
 * Options of a retry-as-poll activity that must be done within `waitMs` from now (the operation's
 * deadline, or its window).
 */
export function retryAsPollOptions(waitMs: number, opts: { grace?: boolean } = {}): ActivityOptions {
  return {
    // An attempt is a wait of at most a second and one bounded read (POLL_TIMEOUT_MS): a worker lost
    // mid-attempt is noticed within 15 s.
    startToCloseTimeout: '15s',
    scheduleToCloseTimeout: Math.max(1_000, waitMs) + (opts.grace === false ? 0 : DEADLINE_GRACE_MS),
    retry: RETRY_AS_POLL,
    // Between polls there is nothing to stop; an attempt in flight is a read and may finish.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  };
}

/**
 * Whether a poll activity ended because its time ran out: the server's schedule-to-close fired (a
 * lost worker), or it refused a retry that would have landed past it (the cause is then the last
 * StillRunning failure).
 */
export function pollTimedOut(err: unknown): err is ActivityFailure {
  return (
    err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.retryState === RetryState.TIMEOUT)
  );
}
