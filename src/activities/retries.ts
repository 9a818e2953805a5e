// How an activity attempt fails and is tried again: a PlatformError as a typed ApplicationFailure; a
// costly call retried while an earlier attempt's request may be in flight; and retry-as-poll.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType, type FailureTypeName } from '../api/failures';
import type { PlatformClient } from '../platform-client/client';
import { classifySubmitFailure, PlatformError } from '../platform-client/errors';

// Typed failures: workflows and callers in any language can tell "retry later" from "this will never
// work". Retry-After becomes nextRetryDelay.

const BUDGET_REASONS = new Set(['BILLING_BALANCE_NOT_ENOUGH', 'BUDGET_EXCEEDED', 'INSUFFICIENT_BALANCE']);

function finalType(err: PlatformError): FailureTypeName {
  if (err.kind === 'invalid_request') return FailureType.InvalidInput;
  if (err.status === 401 || err.status === 403) return FailureType.Unauthorized;
  // The GPU API reports a missing instance as 400 RESOURCE_NOT_FOUND, the task API as 404.
  if (err.status === 404 || err.reason?.endsWith('NOT_FOUND')) return FailureType.NotFound;
  if (err.status === 402 || (err.reason && BUDGET_REASONS.has(err.reason))) return FailureType.BudgetExceeded;
  if (err.status === 400 && err.reason === 'INVALID_REQUEST_BODY') return FailureType.InvalidInput;
  return FailureType.PlatformRejected;
}

/**
 * `nextRetryDelayMs` replaces the Retry-After for a retryable error: activities that pace their own
 * retries (the retry-as-poll waits) pass the delay they chose. `detail` adds facts an activity decided
 * to the error's own (the submit's outcome).
 */
export function toApplicationFailure(
  err: PlatformError,
  opts: { nextRetryDelayMs?: number; detail?: Record<string, unknown> } = {},
): ApplicationFailure {
  const details = [{ ...err.toJSON(), ...opts.detail }];
  if (!err.retryable) {
    return ApplicationFailure.create({ type: finalType(err), message: err.message, nonRetryable: true, details });
  }
  return ApplicationFailure.create({
    type: err.status === 429 ? FailureType.RateLimited : FailureType.PlatformUnavailable,
    message: err.message,
    nonRetryable: false,
    details,
    // Honour the platform's Retry-After; otherwise the activity's retry policy backs off.
    nextRetryDelay: opts.nextRetryDelayMs ?? err.retryAfterMs,
  });
}

/** Wraps every activity so a PlatformError leaves it as a typed ApplicationFailure. */
export function withPlatformFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
): T {
  const wrapped: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw err instanceof PlatformError ? toApplicationFailure(err) : err;
      }
    };
    // Keep the function name: it is the activity type the worker registers.
    Object.defineProperty(wrapped[name], 'name', { value: name });
  }
  return wrapped as T;
}

// In flight: a retried attempt of a costly call may start while an earlier attempt's request is still
// on its way to the platform, or still being acted upon there: the client gave up on it, the platform
// did not. So before a retry decides from what it sees (an expiry that moved, a batch that exists) that
// the earlier attempt did not get through, it waits that time out, looking now and then. An attempt
// records in its heartbeat when it sent a request that may have got through, so a retry after clear
// refusals (a 503 with the platform's error body, a refused connection) need not wait at all.

/** Gap between two looks while waiting (they are reads). */
const LOOK_EVERY_MS = 2_000;

/** Heartbeat details: when the latest request that may have reached the platform was sent. */
interface InFlight {
  maybeSentAt?: number;
}

/**
 * Sends a costly request, recording first that it may reach the platform; a clear refusal takes that
 * back (the earlier attempts' record stays).
 */
export async function sendCostly<T>(ctx: Context, send: () => Promise<T>): Promise<T> {
  const before = ctx.info.heartbeatDetails as InFlight | undefined;
  ctx.heartbeat({ maybeSentAt: Date.now() } satisfies InFlight);
  try {
    return await send();
  } catch (err) {
    if (err instanceof PlatformError && classifySubmitFailure(err) !== 'ambiguous') ctx.heartbeat({ ...before });
    throw err;
  }
}

/**
 * On a retry (attempt > 1), calls `look` until it finds what an earlier attempt did, or until no
 * request an earlier attempt sent can still land: twice the client's call timeout (a platform slower
 * than that is the residual risk) after the latest one that may have got through (when no heartbeat says, after this attempt was scheduled: every earlier attempt had sent
 * whatever it sent by then). Returns what `look` found, or undefined when nothing did (the call has
 * to be made). A first attempt, or a retry after clear refusals only, returns undefined at once.
 */
export async function findAfterEarlierAttempts<T>(
  ctx: Context,
  platform: PlatformClient,
  look: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const { attempt, currentAttemptScheduledTimestampMs } = ctx.info;
  if (attempt <= 1) return undefined;
  const recorded = ctx.info.heartbeatDetails as InFlight | undefined;
  if (recorded && recorded.maybeSentAt === undefined) return undefined;
  const settledAt = (recorded?.maybeSentAt ?? currentAttemptScheduledTimestampMs) + 2 * platform.config.timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    ctx.heartbeat(recorded); // alive, and the record kept for a retry of this attempt
    const left = settledAt - Date.now();
    if (left <= 0) return undefined;
    await ctx.sleep(Math.min(LOOK_EVERY_MS, left));
  }
}

// Retry-as-poll: an activity attempt makes one poll; when the operation is still running it fails
// with StillRunning and a nextRetryDelay, and the server runs it again after that delay. A waiting
// operation then holds no activity slot and sends no heartbeats (one long heartbeating activity per
// wait would cost the server work for every second waited, about 3,300 requests/s for 10,000 waits):
// the server's work grows with the polls made, and retries add no history events. A lost worker is
// noticed by the attempt's short start-to-close timeout. The attempt's facts travel in the failure's
// details (the pending activity's last failure), where the starter's live progress and the Web UI
// read them.

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
