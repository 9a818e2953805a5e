// A retried attempt of a costly call may start while an earlier attempt's request is still on its way
// to the platform, or still being acted upon there: the client gave up on it, the platform did not.
// So before a retry decides from what it sees (an expiry that moved, a batch that exists) that the
// earlier attempt did not get through, it waits that time out, looking now and then. An attempt
// records in its heartbeat when it sent a request that may have got through, so a retry after clear
// refusals (a 503 with the platform's error body, a refused connection) need not wait at all.
import type { Context } from '@temporalio/activity';
import { classifySubmitFailure, PlatformError } from '../platform-client/errors';

/**
 * How long after a request was sent the platform may still act on it, however long our client
 * waited: twice the client's call timeout. A platform slower than that is the residual risk.
 */
export const inFlightSettleMs = (clientTimeoutMs: number): number => 2 * clientTimeoutMs;

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
 * request an earlier attempt sent can still land: `settleMs` after the latest one that may have got
 * through (when no heartbeat says, after this attempt was scheduled: every earlier attempt had sent
 * whatever it sent by then). Returns what `look` found, or undefined when nothing did (the call has
 * to be made). A first attempt, or a retry after clear refusals only, returns undefined at once.
 */
export async function findAfterEarlierAttempts<T>(
  ctx: Context,
  settleMs: number,
  look: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const { attempt, currentAttemptScheduledTimestampMs } = ctx.info;
  if (attempt <= 1) return undefined;
  const recorded = ctx.info.heartbeatDetails as InFlight | undefined;
  if (recorded && recorded.maybeSentAt === undefined) return undefined;
  const settledAt = (recorded?.maybeSentAt ?? currentAttemptScheduledTimestampMs) + settleMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    ctx.heartbeat(recorded); // alive, and the record kept for a retry of this attempt
    const left = settledAt - Date.now();
    if (left <= 0) return undefined;
    await ctx.sleep(Math.min(LOOK_EVERY_MS, left));
  }
}
