// Retry-as-poll: an activity attempt makes one poll; when the operation is still running it fails
// with StillRunning and a nextRetryDelay, and the server runs it again after that delay. A waiting
// operation then holds no activity slot and sends no heartbeats (one long heartbeating activity per
// wait would cost the server work for every second waited, about 3,300 requests/s for 10,000 waits):
// the server's work grows with the polls made, and retries add no history events. A lost worker is
// noticed by the attempt's short start-to-close timeout. The attempt's facts travel in the failure's
// details (the pending activity's last failure), where the starter's live progress and the Web UI
// read them.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType } from '../api/failures';
import type { PlatformClient } from '../platform-client/client';
import { PlatformError } from '../platform-client/errors';
import { toApplicationFailure } from './failures';

/**
 * A poll is a small read: one that takes longer is a failed poll, tried again. It also bounds an
 * attempt (a lead of at most a second, then this), so the poll activities' start-to-close timeout,
 * which notices a lost worker, can be short (src/workflows/retry-policies.ts).
 */
export const POLL_TIMEOUT_MS = 10_000;

export const pollTimeoutMs = (platform: PlatformClient) => Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs);

/** A failed poll (429, 5xx, timeout) is tried again after at most this, however long the outage. */
const MAX_ERROR_BACKOFF_MS = 5 * 60_000;

/**
 * The server runs a retry up to about a second after its delay (its timer queue fires timers in
 * steps; measured here 0.7-0.95 s late on the dev server). So a retry is asked for this much early,
 * and the attempt waits out the rest itself (awaitPollTurn): polls land on the millisecond planned, at
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
 * The start of every retry-as-poll attempt. A first attempt whose poll (planned at the checkpoint
 * `since`) is not due for a while only asks to be run again then; any other attempt waits until its
 * poll is due (never past `deadlineAt`): for a first attempt, the time its caller planned; for a
 * retry, RETRY_TIMER_LEAD_MS after the server meant to run it. Returns which poll since the
 * checkpoint this attempt makes (1 for the first): every request counts, failed ones too.
 */
export async function awaitPollTurn(
  ctx: Context,
  what: string,
  since: { nextPollAt?: number } | undefined,
  deadlineAt = Infinity,
): Promise<number> {
  const { attempt, scheduledTimestampMs, currentAttemptScheduledTimestampMs } = ctx.info;
  const firstAttemptWaits =
    since?.nextPollAt !== undefined && since.nextPollAt - scheduledTimestampMs > RETRY_TIMER_LEAD_MS;
  const plannedAt = attempt > 1 ? currentAttemptScheduledTimestampMs + RETRY_TIMER_LEAD_MS : (since?.nextPollAt ?? 0);
  const dueAt = Math.min(plannedAt, deadlineAt);
  if (attempt === 1 && firstAttemptWaits) {
    throw pollAgainIn(dueAt - Date.now(), `${what}: next poll due at ${new Date(dueAt).toISOString()}`, since);
  }
  const wait = dueAt - Date.now();
  if (wait > 0) await ctx.sleep(wait);
  return attempt - (firstAttemptWaits ? 1 : 0);
}

/**
 * How long to wait after a transient poll failure: the platform's Retry-After when it gives one, else
 * exponential in the attempt number with full jitter, from `minMs` up to MAX_ERROR_BACKOFF_MS, and
 * never longer than `maxMs` (the polls' own gap) unless the platform asks. Polls are reads, so
 * retrying them is always safe; the operation's own deadline bounds the whole wait.
 */
export function errorBackoffMs(
  err: PlatformError,
  attempt: number,
  minMs: number,
  maxMs = Infinity,
  random = Math.random,
): number {
  const ceiling = Math.min(MAX_ERROR_BACKOFF_MS, minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
  const jittered = minMs + random() * Math.max(0, ceiling - minMs);
  const backoff = Math.max(err.retryAfterMs ?? 0, Math.round(jittered));
  return Math.min(backoff, Math.max(maxMs, err.retryAfterMs ?? 0));
}

/**
 * One poll's read, bounded by POLL_TIMEOUT_MS. A transient failure ends the attempt asking for the
 * next one after `backoffMs(err)`, however long the outage; any other failure leaves as it is.
 */
export async function pollRead<T>(
  ctx: Context,
  platform: PlatformClient,
  read: (opts: { signal: AbortSignal; timeoutMs: number }) => Promise<T>,
  backoffMs: (err: PlatformError) => number,
): Promise<T> {
  try {
    return await read({ signal: ctx.cancellationSignal, timeoutMs: pollTimeoutMs(platform) });
  } catch (err) {
    if (!(err instanceof PlatformError) || !err.retryable) throw err;
    throw toApplicationFailure(err, { nextRetryDelayMs: retryDelayFor(backoffMs(err)) });
  }
}
