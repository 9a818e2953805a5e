// Retry-as-poll: an activity attempt makes one poll; when the operation is still running it fails
// with StillRunning and a nextRetryDelay, and the server runs it again after that delay. A waiting
// operation then holds no activity slot and sends no heartbeats: the server's work grows with the
// polls made, not with the time spent waiting, and retries add no history events. The attempt's
// facts travel in the failure's details (the pending activity's last failure), where the starter's
// live progress and the Web UI read them.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType } from '../api/failures';
import type { PlatformError } from '../platform-client/errors';

/**
 * A poll is a small read: one that takes longer is a failed poll, tried again. It also bounds an
 * attempt (a lead of at most a second, then this), so the poll activities' start-to-close timeout,
 * which notices a lost worker, can be short (src/workflows/retry-policies.ts).
 */
export const POLL_TIMEOUT_MS = 10_000;

/** A failed poll (429, 5xx, timeout) is tried again after at most this, however long the outage. */
const MAX_ERROR_BACKOFF_MS = 5 * 60_000;

/**
 * The server runs a retry up to about a second after its delay (its timer queue fires timers in
 * steps; measured here 0.7-0.95 s late on the dev server). So a retry is asked for this much early,
 * and the attempt waits out the rest itself (awaitPollDue): polls land on the millisecond planned, at
 * the cost of holding an activity slot for at most this long per poll.
 */
export const RETRY_TIMER_LEAD_MS = 1_000;

/** The nextRetryDelay that makes the next attempt's poll due `waitMs` from now. */
export function retryDelayFor(waitMs: number): number {
  return Math.max(1, Math.round(waitMs - RETRY_TIMER_LEAD_MS));
}

/** Ends this attempt, asking for the next poll in `waitMs` (at least RETRY_TIMER_LEAD_MS). */
export function pollAgainIn(waitMs: number, message: string, details: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.StillRunning,
    message,
    details: [details],
    nonRetryable: false,
    nextRetryDelay: retryDelayFor(waitMs),
    category: ApplicationFailureCategory.BENIGN,
  });
}

/**
 * When this attempt's poll is due: for a first attempt, the time its caller planned (if any); for a
 * retry, RETRY_TIMER_LEAD_MS after the server meant to run it.
 */
function pollDueAt(ctx: Context, plannedFirstPollAt?: number): number {
  const { attempt, currentAttemptScheduledTimestampMs } = ctx.info;
  if (attempt > 1) return currentAttemptScheduledTimestampMs + RETRY_TIMER_LEAD_MS;
  return plannedFirstPollAt ?? 0;
}

/** Waits until `at` (a poll due within RETRY_TIMER_LEAD_MS, by pollDueAt's construction). */
async function sleepUntil(ctx: Context, at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await ctx.sleep(wait);
}

/**
 * The start of every retry-as-poll attempt. A first attempt whose poll (planned at the checkpoint
 * `since`) is not due for a while only asks to be run again then; any other attempt waits until its
 * poll is due (never past `deadlineAt`). Returns which poll since the checkpoint this attempt makes
 * (1 for the first): every request counts, failed ones too.
 */
export async function awaitPollTurn(
  ctx: Context,
  what: string,
  since: { nextPollAt?: number } | undefined,
  deadlineAt = Infinity,
): Promise<number> {
  const { attempt, scheduledTimestampMs } = ctx.info;
  const firstAttemptWaits =
    since?.nextPollAt !== undefined && since.nextPollAt - scheduledTimestampMs > RETRY_TIMER_LEAD_MS;
  const dueAt = Math.min(pollDueAt(ctx, since?.nextPollAt), deadlineAt);
  if (attempt === 1 && firstAttemptWaits) {
    throw pollAgainIn(dueAt - Date.now(), `${what}: next poll due at ${new Date(dueAt).toISOString()}`, since);
  }
  await sleepUntil(ctx, dueAt);
  return attempt - (firstAttemptWaits ? 1 : 0);
}

/**
 * How long to wait after a transient poll failure (pass it through retryDelayFor): the platform's Retry-After when it gives one, else
 * exponential in the attempt number with full jitter, from `minMs` up to MAX_ERROR_BACKOFF_MS. Polls
 * are reads, so retrying them is always safe; the operation's own deadline bounds the whole wait.
 */
export function errorBackoffMs(err: PlatformError, attempt: number, minMs: number, random = Math.random): number {
  const ceiling = Math.min(MAX_ERROR_BACKOFF_MS, minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
  const jittered = minMs + random() * Math.max(0, ceiling - minMs);
  return Math.max(err.retryAfterMs ?? 0, Math.round(jittered));
}
