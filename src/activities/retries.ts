// How an activity attempt fails and is tried again (docs/retries.md): typed failures, costly calls, retry-as-poll.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType, type FailureTypeName } from '@platform-ops/client';
import type { PlatformClient } from '../platform-client/client';
import { classifySubmitFailure, PlatformError } from '../platform-client/errors';

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

export function toApplicationFailure(
  err: PlatformError,
  opts: { nextRetryDelayMs?: number; detail?: Record<string, unknown> } = {},
): ApplicationFailure {
  const { retryable } = err;
  return ApplicationFailure.create({
    type: !retryable ? finalType(err) : err.status === 429 ? FailureType.RateLimited : FailureType.PlatformUnavailable,
    message: err.message,
    nonRetryable: !retryable,
    details: [{ ...err.toJSON(), ...opts.detail }],
    nextRetryDelay: retryable ? (opts.nextRetryDelayMs ?? err.retryAfterMs) : undefined,
  });
}

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

// A retry of a costly call looks until no earlier attempt's request can still land ("Money exactly once" in
// docs/retries.md); the heartbeat records when a request that may have got through was sent.
const LOOK_EVERY_MS = 2_000;

type InFlight = { maybeSentAt?: number } | undefined;

export async function sendCostly<T>(ctx: Context, send: () => Promise<T>): Promise<T> {
  const before = ctx.info.heartbeatDetails as InFlight;
  ctx.heartbeat({ maybeSentAt: Date.now() } satisfies InFlight);
  try {
    return await send();
  } catch (err) {
    if (err instanceof PlatformError && classifySubmitFailure(err) !== 'ambiguous') ctx.heartbeat({ ...before });
    throw err;
  }
}

/** On a retry, looks until twice the client timeout after the latest request that may have got through. */
export async function findAfterEarlierAttempts<T>(
  ctx: Context,
  platform: PlatformClient,
  look: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const { attempt, currentAttemptScheduledTimestampMs } = ctx.info;
  if (attempt <= 1) return undefined;
  const recorded = ctx.info.heartbeatDetails as InFlight;
  if (recorded && recorded.maybeSentAt === undefined) return undefined;
  const settledAt = (recorded?.maybeSentAt ?? currentAttemptScheduledTimestampMs) + 2 * platform.config.timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    ctx.heartbeat(recorded);
    const left = settledAt - Date.now();
    if (left <= 0) return undefined;
    await ctx.sleep(Math.min(LOOK_EVERY_MS, left));
  }
}

// Retry-as-poll: an attempt makes one poll and, while the operation runs, fails as StillRunning with a
// nextRetryDelay, so a long wait holds no slot and sends no heartbeats; a wait that fits the attempt's time is
// made in the attempt (waitInAttempt). See src/operations/mediaGeneration/README.md.
const POLL_TIMEOUT_MS = 10_000;
export const pollTimeoutMs = (platform: PlatformClient) => Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs);

const MAX_ERROR_BACKOFF_MS = 5 * 60_000;

/** The server runs a retry up to about a second late: it is asked for this much early and awaitPollTurn waits. */
export const RETRY_TIMER_LEAD_MS = 1_000;

/** Waits made in attempts at once, each holding an activity slot (WORKER_IN_ATTEMPT_WAITS sets the limit). */
const inAttemptWaits = { held: 0, limit: 1_000 };

export function limitInAttemptWaits(limit: number): void {
  inAttemptWaits.limit = limit;
}

/**
 * Waits `waitMs` in this attempt when it and a read fit its time and a place is free. No pause or cancel reaches
 * the wait (no heartbeats): `stillWanted`, asked at its end, says whether the read is still wanted.
 */
export async function waitInAttempt(
  ctx: Context,
  waitMs: number,
  readMs: number,
  stillRunning: (leftMs: number) => ApplicationFailure,
  stillWanted: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<boolean> {
  if (waitMs <= 0) return true;
  // Counted from when the attempt was due, not when it started: never later than the server's own bound.
  const endsAt = ctx.info.currentAttemptScheduledTimestampMs + (ctx.info.startToCloseTimeoutMs ?? Infinity);
  const fits = Date.now() + waitMs + readMs + RETRY_TIMER_LEAD_MS <= endsAt;
  if (!fits || inAttemptWaits.held >= inAttemptWaits.limit) return false;
  const until = Date.now() + waitMs;
  inAttemptWaits.held++;
  try {
    await ctx.sleep(waitMs);
    if (!(await stillWanted())) throw stillRunning(RETRY_TIMER_LEAD_MS);
    return true;
  } catch (err) {
    // A worker shutting down hands the wait to another worker's retry.
    if (ctx.cancellationDetails?.workerShutdown) throw stillRunning(until - Date.now());
    throw err;
  } finally {
    inAttemptWaits.held--;
  }
}

const retryDelayFor = (waitMs: number) => Math.max(1, Math.round(waitMs - RETRY_TIMER_LEAD_MS));

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

const firstPollLater = (ctx: Context, since: { nextPollAt?: number } | undefined) =>
  since?.nextPollAt !== undefined && since.nextPollAt - ctx.info.scheduledTimestampMs > RETRY_TIMER_LEAD_MS;

/** The polls the attempts before attempt `n` made since the checkpoint: one each, or as recorded. */
function pollsBefore(ctx: Context, since: { nextPollAt?: number } | undefined, n: number): number {
  const recorded = ctx.info.heartbeatDetails as { polls?: unknown; attempt?: unknown } | undefined;
  if (typeof recorded?.polls === 'number' && typeof recorded.attempt === 'number' && recorded.attempt < n) {
    return recorded.polls + (n - 1 - recorded.attempt);
  }
  return n - 1 - (n > 1 && firstPollLater(ctx, since) ? 1 : 0);
}

/** Records `polls` only when the next attempt would count otherwise: a heartbeat is a request. */
export function recordPollCount(ctx: Context, since: { nextPollAt?: number } | undefined, polls: number): void {
  const { attempt } = ctx.info;
  if (polls !== pollsBefore(ctx, since, attempt + 1)) ctx.heartbeat({ polls, attempt });
}

/** Starts every retry-as-poll attempt, at its poll's time; returns which poll since the checkpoint this is. */
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

/** Exponential backoff with full jitter from `minMs`, capped by `maxMs` and 5 minutes; a longer Retry-After wins. */
export function errorBackoffMs(err: PlatformError, attempt: number, minMs: number, maxMs = Infinity): number {
  const ceiling = Math.min(MAX_ERROR_BACKOFF_MS, minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
  const jittered = minMs + Math.random() * Math.max(0, ceiling - minMs);
  const backoff = Math.max(err.retryAfterMs ?? 0, Math.round(jittered));
  return Math.min(backoff, Math.max(maxMs, err.retryAfterMs ?? 0));
}

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
