// The activities' options (docs/retries.md): a transient failure is retried until the operation's deadline, never
// after a count of attempts; only the other failure types end a call.
import { RetryState } from '@temporalio/common';
import {
  ActivityCancellationType,
  ActivityFailure,
  type ActivityOptions,
  type RetryPolicy,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType } from '@platform-ops/client';

const TRANSIENT: string[] = [FailureType.RateLimited, FailureType.PlatformUnavailable, FailureType.StillRunning];

const TRANSIENT_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '3m',
  nonRetryableErrorTypes: Object.values<string>(FailureType).filter((t) => !TRANSIENT.includes(t)),
};

// Longer than the client's HTTP timeout (PLATFORM_TIMEOUT_MS): no retry while a request may still be in flight.
const PLATFORM_ATTEMPT_MS = 2 * 60_000;

export const HOUR_MS = 60 * 60_000;

/** How long a step several operations share keeps retrying from the workflow's start, when the input gives no deadline. */
export const DEFAULT_DEADLINE_MS = {
  budgetAdmission: 6 * HOUR_MS,
  // Output URLs expire on their own (OutputExpired ends it).
  keepOutputs: 6 * HOUR_MS,
} as const;

interface AttemptOptions {
  attemptMs?: number;
  heartbeatMs?: number;
}

/** A deadline already past still gets one attempt: the call was going to be made, and its outcome must come back. */
export function untilDeadline(deadlineAt: number, opts: AttemptOptions = {}): ActivityOptions {
  return forUpTo(deadlineAt - Date.now(), opts);
}

export const untilAfterStart = (ms: number, opts?: AttemptOptions): ActivityOptions =>
  untilDeadline(workflowInfo().startTime.getTime() + ms, opts);

export function forUpTo(ms: number, opts: AttemptOptions = {}): ActivityOptions {
  const attemptMs = opts.attemptMs ?? PLATFORM_ATTEMPT_MS;
  return {
    startToCloseTimeout: attemptMs,
    scheduleToCloseTimeout: Math.max(attemptMs, ms),
    heartbeatTimeout: opts.heartbeatMs,
    retry: TRANSIENT_RETRY,
  };
}

// A reset run's paid calls look for the same call in the runs it was reset from (src/activities/earlier-runs.ts).
export const startedByReset = (): boolean => workflowInfo().runId !== workflowInfo().originalExecutionRunId;

// After a reset, a paid call may wait for an earlier run's call in flight: up to one more attempt, and its answer.
export const afterReset = () =>
  startedByReset()
    ? { options: { startToCloseTimeout: 2 * PLATFORM_ATTEMPT_MS + 15_000 }, mark: { afterReset: true } }
    : { options: {}, mark: {} };

/** A call that must happen whatever the outage (releasing a reservation, cancelling a paid batch). */
export const UNTIL_DONE: ActivityOptions = { startToCloseTimeout: PLATFORM_ATTEMPT_MS, retry: TRANSIENT_RETRY };

/** A costly submit whose resubmission the workflow decides itself, never the server. */
export const SUBMIT_ONCE: ActivityOptions = { startToCloseTimeout: PLATFORM_ATTEMPT_MS, retry: { maximumAttempts: 1 } };

// A poll activity fails by itself past its deadline; the server's bound is this much later, for a lost worker.
const DEADLINE_GRACE_MS = 60_000;

// A wait of at most a second and one bounded read (POLL_TIMEOUT_MS).
const POLL_ATTEMPT_MS = 15_000;
export const MAX_IN_ATTEMPT_MS = 2 * 60_000;

/**
 * A retry-as-poll activity (src/activities/retries.ts) done within `waitMs`. Each attempt sets its own next delay,
 * so the retry policy applies only to one that ends without (a lost worker, a bug). `inAttemptMs` gives every
 * attempt time for the polls it waits for in the worker (waitInAttempt) instead of asking for a retry.
 */
export function retryAsPollOptions(
  waitMs: number,
  opts: { grace?: boolean; inAttemptMs?: number } = {},
): ActivityOptions {
  const inAttemptMs = Math.min(MAX_IN_ATTEMPT_MS, Math.max(0, Math.round(opts.inAttemptMs ?? 0)));
  return {
    startToCloseTimeout: POLL_ATTEMPT_MS + inAttemptMs,
    scheduleToCloseTimeout: Math.max(1_000, waitMs) + (opts.grace === false ? 0 : DEADLINE_GRACE_MS),
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m' },
    // Between polls there is nothing to stop; an attempt in flight is a read and may finish.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  };
}

/** The server's schedule-to-close fired (a lost worker), or it refused a retry past it. */
export function pollTimedOut(err: unknown): err is ActivityFailure {
  return (
    err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.retryState === RetryState.TIMEOUT)
  );
}
