// How an activity attempt fails and is tried again (docs/retries.md): typed failures, costly calls, retry-as-poll.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType, type FailureTypeName } from '@platform-ops/client';
import type { PlatformClient } from '../platform-client/client';
import { classifySubmitFailure, PlatformError } from '../platform-client/errors';

// Typed failures let callers in any language tell "retry later" from "this will never work".
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

/** `nextRetryDelayMs` replaces Retry-After for activities that pace their own retries; `detail` adds their facts. */
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

// A retry of a costly call may start while the platform still acts on an earlier attempt's request, so it
// looks until no such request can land ("Money exactly once" in docs/retries.md). The heartbeat records
// when a request that may have got through was sent: a retry after clear refusals need not wait.

/** Gap between two looks while waiting (they are reads). */
const LOOK_EVERY_MS = 2_000;

interface InFlight {
  maybeSentAt?: number;
}

/** Sends a costly request, recording first that it may land; a clear refusal takes that back. */
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
 * On a retry, calls `look` until it finds what an earlier attempt did, or until twice the client timeout after
 * the latest request that may have got through (with no heartbeat, after this attempt was scheduled: every
 * earlier attempt had sent by then). Undefined means the call has to be made.
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

// Retry-as-poll: an attempt makes one poll and, while the operation runs, fails as StillRunning with a
// nextRetryDelay, so a long wait holds no slot and sends no heartbeats (a heartbeating activity per wait would
// cost about 3,300 requests/s for 10,000 waits). A wait that fits the attempt's own time is made in the
// attempt instead, while a waiting place is free (waitInAttempt): a retry costs the server two requests and the
// worker an activity task. Its facts travel in the failure's details, read by the starter's live progress and
// the Web UI (src/operations/mediaGeneration/README.md).

/** Bounds a poll, and with it an attempt, so the poll activities' start-to-close timeout can be short. */
export const POLL_TIMEOUT_MS = 10_000;

export const pollTimeoutMs = (platform: PlatformClient) => Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs);

/** A failed poll (429, 5xx, timeout) is tried again after at most this, however long the outage. */
const MAX_ERROR_BACKOFF_MS = 5 * 60_000;

/**
 * The server runs a retry up to about a second late (its timer queue fires in steps; 0.7-0.95 s on the dev
 * server), so a retry is asked for this much early and awaitPollTurn waits out the rest: polls land on time.
 */
export const RETRY_TIMER_LEAD_MS = 1_000;

/**
 * Waits made in attempts at once, across the worker process: each holds an activity slot, which the other
 * activities need too (src/config/settings.ts WORKER_IN_ATTEMPT_WAITS sets it).
 */
const inAttemptWaits = { held: 0, limit: 1_000 };

export function limitInAttemptWaits(limit: number): void {
  inAttemptWaits.limit = limit;
}

/**
 * Whether a wait of `waitMs` and then one read of at most `readMs` end well within this attempt's time: the
 * workflow gives an attempt the time for the waits it may make (src/workflows/retry-policies.ts).
 */
function fitsInAttempt(ctx: Context, waitMs: number, readMs: number): boolean {
  // Counted from when the attempt was due, not when it started: never later than the server's own bound.
  const endsAt = ctx.info.currentAttemptScheduledTimestampMs + (ctx.info.startToCloseTimeoutMs ?? Infinity);
  return Date.now() + waitMs + readMs + RETRY_TIMER_LEAD_MS <= endsAt;
}

/**
 * Waits `waitMs` in this attempt when that fits its time and a waiting place is free; false (nothing waited)
 * otherwise. A worker shutting down ends the wait as `stillRunning` with the time left, so another worker's
 * retry polls on time. The wait sends no heartbeats, so no pause or cancel reaches it while it waits:
 * `stillWanted`, asked once at its end, tells whether the read after it is still wanted (the activity
 * not paused or cancelled meanwhile); when not, the attempt ends as `stillRunning` without reading.
 */
export async function waitInAttempt(
  ctx: Context,
  waitMs: number,
  readMs: number,
  stillRunning: (leftMs: number) => ApplicationFailure,
  stillWanted: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<boolean> {
  if (waitMs <= 0) return true;
  if (!fitsInAttempt(ctx, waitMs, readMs) || inAttemptWaits.held >= inAttemptWaits.limit) return false;
  const until = Date.now() + waitMs;
  inAttemptWaits.held++;
  try {
    await ctx.sleep(waitMs);
    if (!(await stillWanted())) throw stillRunning(RETRY_TIMER_LEAD_MS);
    return true;
  } catch (err) {
    if (ctx.cancellationDetails?.workerShutdown) throw stillRunning(until - Date.now());
    throw err;
  } finally {
    inAttemptWaits.held--;
  }
}

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

/** The polls since the checkpoint made through an attempt, recorded when a retry could not count them itself. */
interface PollCount {
  polls: number;
  attempt: number;
}

/** Whether a first attempt planned at `since` was due later than its start (it waits, or asks to run then). */
const firstPollLater = (ctx: Context, since: { nextPollAt?: number } | undefined) =>
  since?.nextPollAt !== undefined && since.nextPollAt - ctx.info.scheduledTimestampMs > RETRY_TIMER_LEAD_MS;

/**
 * The polls since the checkpoint that the attempts before attempt `n` made, as attempt `n` counts them: one
 * each, but none for a first attempt that only asked to run later, unless an attempt recorded its own count
 * (recordPollCount; the record an attempt starts with is the latest).
 */
function pollsBefore(ctx: Context, since: { nextPollAt?: number } | undefined, n: number): number {
  const recorded = ctx.info.heartbeatDetails as Partial<PollCount> | undefined;
  if (typeof recorded?.polls === 'number' && typeof recorded.attempt === 'number' && recorded.attempt < n) {
    return recorded.polls + (n - 1 - recorded.attempt);
  }
  return n - 1 - (n > 1 && firstPollLater(ctx, since) ? 1 : 0);
}

/**
 * Before an attempt ends in a failure that the next attempt retries: records `polls` (since the checkpoint, this
 * attempt's included) when the next attempt would count otherwise (this one waited for its first poll, or made
 * two reads). Most attempts make one read and record nothing: a heartbeat is a request.
 */
export function recordPollCount(ctx: Context, since: { nextPollAt?: number } | undefined, polls: number): void {
  const { attempt } = ctx.info;
  if (polls !== pollsBefore(ctx, since, attempt + 1)) ctx.heartbeat({ polls, attempt } satisfies PollCount);
}

/**
 * Starts every retry-as-poll attempt. A first attempt whose poll (planned at the checkpoint `since`) is not due
 * soon asks to run again then, or, given `inAttemptReadMs` (the caller records its count on failure,
 * recordPollCount), waits for it in the attempt when it can (waitInAttempt); any other waits until its poll is
 * due, never past `deadlineAt`. Returns which poll since the checkpoint this is (1 for the first): failed
 * requests count too.
 */
export async function awaitPollTurn(
  ctx: Context,
  what: string,
  since: { nextPollAt?: number } | undefined,
  deadlineAt = Infinity,
  inAttemptReadMs?: number,
  stillWanted?: () => Promise<boolean>,
): Promise<number> {
  const { attempt, currentAttemptScheduledTimestampMs } = ctx.info;
  const plannedAt = attempt > 1 ? currentAttemptScheduledTimestampMs + RETRY_TIMER_LEAD_MS : (since?.nextPollAt ?? 0);
  const dueAt = Math.min(plannedAt, deadlineAt);
  const askLater = (leftMs: number) =>
    pollAgainIn(leftMs, `${what}: next poll due at ${new Date(dueAt).toISOString()}`, since);
  if (attempt === 1 && firstPollLater(ctx, since)) {
    const waited =
      inAttemptReadMs !== undefined &&
      (await waitInAttempt(ctx, dueAt - Date.now(), inAttemptReadMs, askLater, stillWanted));
    if (!waited) throw askLater(dueAt - Date.now());
  }
  const wait = dueAt - Date.now();
  if (wait > 0) await ctx.sleep(wait);
  return pollsBefore(ctx, since, attempt) + 1;
}

/**
 * The wait after a transient poll failure: exponential with full jitter from `minMs`, capped by `maxMs` (the
 * polls' own gap) and MAX_ERROR_BACKOFF_MS; a longer Retry-After wins. Polls are reads: retrying is safe.
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

/** One poll's read; a transient failure ends the attempt asking for the next one after `backoffMs(err)`. */
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
