// Retry policies and activity options of the workflows' activities, in one place (docs/retries.md):
// an outage delays an operation, it never destroys it. A transient failure is retried with a capped
// backoff until the operation's deadline (the schedule-to-close timeout), never after a count of
// attempts; only the other failure types end a call, and with it the workflow.
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

/** The failure types worth another attempt; StillRunning is retry-as-poll's own. */
const TRANSIENT: string[] = [FailureType.RateLimited, FailureType.PlatformUnavailable, FailureType.StillRunning];

export const TRANSIENT_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '3m',
  nonRetryableErrorTypes: Object.values<string>(FailureType).filter((t) => !TRANSIENT.includes(t)),
};

/**
 * The longest one attempt of a platform call may take: longer than the client's HTTP timeout
 * (PLATFORM_TIMEOUT_MS), so the server never retries while an attempt's request may still be in flight.
 */
export const PLATFORM_ATTEMPT_MS = 2 * 60_000;

export const HOUR_MS = 60 * 60_000;

/**
 * How long a step that several operations share keeps retrying, from the workflow's start, when the
 * input gives no deadline of its own. Each operation keeps its own default beside its workflow.
 */
export const DEFAULT_DEADLINE_MS = {
  /** Pricing, the gate and admission of a budget-gated job (the ledger answers while the platform is up). */
  budgetAdmission: 6 * HOUR_MS,
  /** Keeping a finished task's or batch's outputs: their URLs expire on their own (OutputExpired ends it). */
  keepOutputs: 6 * HOUR_MS,
} as const;

interface AttemptOptions {
  attemptMs?: number;
  heartbeatMs?: number;
}

/**
 * Options of a platform call retried until `deadlineAt` (epoch ms on the workflow's clock). A deadline
 * already past still gets one attempt: the call was going to be made, and its outcome must come back.
 */
export function untilDeadline(deadlineAt: number, opts: AttemptOptions = {}): ActivityOptions {
  return forUpTo(deadlineAt - Date.now(), opts);
}

/** untilDeadline, `ms` after the workflow's start. */
export const untilAfterStart = (ms: number, opts?: AttemptOptions): ActivityOptions =>
  untilDeadline(workflowInfo().startTime.getTime() + ms, opts);

/** Options of a call retried for up to `ms` from when it is scheduled (at least one attempt's worth). */
export function forUpTo(ms: number, opts: AttemptOptions = {}): ActivityOptions {
  const attemptMs = opts.attemptMs ?? PLATFORM_ATTEMPT_MS;
  return {
    startToCloseTimeout: attemptMs,
    scheduleToCloseTimeout: Math.max(attemptMs, ms),
    heartbeatTimeout: opts.heartbeatMs,
    retry: TRANSIENT_RETRY,
  };
}

/**
 * Whether a reset started this run: its history began under another run's id. Its paid calls look for
 * the same call in the runs it was reset from before they pay (src/activities/earlier-runs.ts).
 */
export const startedByReset = (): boolean => workflowInfo().runId !== workflowInfo().originalExecutionRunId;

/**
 * A paid call's extra options and input mark in a run a reset started: the call may wait for an earlier
 * run's call in flight to answer, up to one more attempt (and the time for that answer to arrive).
 */
export const afterReset = () =>
  startedByReset()
    ? { options: { startToCloseTimeout: 2 * PLATFORM_ATTEMPT_MS + 15_000 }, mark: { afterReset: true } }
    : { options: {}, mark: {} };

/** A call that must happen whatever the outage (releasing a reservation, cancelling a paid batch). */
export const UNTIL_DONE: ActivityOptions = { startToCloseTimeout: PLATFORM_ATTEMPT_MS, retry: TRANSIENT_RETRY };

/**
 * A costly submit whose resubmission the workflow decides itself, never the server
 * (src/operations/mediaGeneration/workflows-submit.ts): one attempt per activity run; the timeout catches a lost worker.
 */
export const SUBMIT_ONCE: ActivityOptions = { startToCloseTimeout: PLATFORM_ATTEMPT_MS, retry: { maximumAttempts: 1 } };

/** Past its deadline a poll activity fails by itself; the server's bound is this much later, for a lost worker. */
const DEADLINE_GRACE_MS = 60_000;

/** A retry-as-poll attempt's time: a wait of at most a second and one bounded read (POLL_TIMEOUT_MS). */
const POLL_ATTEMPT_MS = 15_000;
/** The longest wait an attempt is given time for (inAttemptMs): a lost worker is found that much later. */
export const MAX_IN_ATTEMPT_MS = 2 * 60_000;

/**
 * Options of a retry-as-poll activity (src/activities/retries.ts) that must be done within `waitMs`.
 * Each attempt sets its own next delay, so the retry policy applies only to an attempt that ends
 * without one (a lost worker, a bug); the deadline is the only bound. With `inAttemptMs`, every attempt
 * has that much more time (at most MAX_IN_ATTEMPT_MS), for the polls it may wait for in the worker
 * instead of asking for a retry (waitInAttempt): the first one, planned that far off, and the one at the
 * predicted end.
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

/**
 * Whether a poll activity ended because its time ran out: the server's schedule-to-close fired (a lost
 * worker), or it refused a retry past it (the cause is then the last StillRunning failure).
 */
export function pollTimedOut(err: unknown): err is ActivityFailure {
  return (
    err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.retryState === RetryState.TIMEOUT)
  );
}
