// The one-line summary each activity carries into the Web UI (its "User Metadata"): what the call is
// for, in the workflow's words ("submit text-to-video for member-demo", "task <id>: waiting: …"). Summaries
// are user metadata on the schedule command: replay does not compare them, so adding or rewording one
// needs no patch. Only ids, names and counts go in one: never a request body, a prompt or a secret.
import type { ActivityFunction } from '@temporalio/common';
import type { ActivityFunctionWithOptions, LocalActivityFunctionWithOptions } from '@temporalio/workflow';
import { afterReset } from './retry-policies';

/** The Web UI shows one line; a longer one is cut. */
export const MAX_ACTIVITY_SUMMARY_CHARS = 200;

/**
 * Said by every retry-as-poll activity's summary: the Web UI shows a waiting poll as "Attempt N / ∞"
 * in the retry colour, which would read as a failure (docs/operations.md).
 */
export const WAITING = 'waiting: each attempt is one poll, a retry is the next poll';

/** `text` on one line, at most MAX_ACTIVITY_SUMMARY_CHARS long. */
export function activitySummary(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_ACTIVITY_SUMMARY_CHARS ? line : `${line.slice(0, MAX_ACTIVITY_SUMMARY_CHARS - 1)}…`;
}

/** The proxied activity `fn`, called with its own options plus `summary`. */
export function summarized<F extends ActivityFunction>(
  fn: ActivityFunctionWithOptions<F> | LocalActivityFunctionWithOptions<F>,
  summary: string,
): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>> {
  return (...args) => fn.executeWithOptions({ summary: activitySummary(summary) }, args);
}

/**
 * A paid call, summarized: in a run that a reset started it is marked `afterReset` and given the time
 * to wait for an earlier run's same call in flight (afterReset in ./retry-policies.ts).
 */
export function paidCall<I extends object, R>(
  fn: ActivityFunctionWithOptions<(input: I) => Promise<R>>,
  summary: string,
): (input: I) => Promise<R> {
  return (input) => {
    const { options, mark } = afterReset();
    return fn.executeWithOptions({ summary: activitySummary(summary), ...options }, [{ ...input, ...mark }]);
  };
}
