// Long waits inside activities. Cancellation reaches an activity only through a heartbeat's answer,
// so a wait heartbeats every few seconds instead of sleeping silently through its whole interval.
import type { Context } from '@temporalio/activity';

const HEARTBEAT_EVERY_MS = 2_000;

/** Sleeps `ms`, heartbeating `details` along the way; rejects at once if the activity is cancelled. */
export async function sleepWithHeartbeats(ctx: Context, ms: number, details: unknown): Promise<void> {
  let remaining = ms;
  while (remaining > 0) {
    const step = Math.min(remaining, HEARTBEAT_EVERY_MS);
    await ctx.sleep(step);
    remaining -= step;
    ctx.heartbeat(details);
  }
}
