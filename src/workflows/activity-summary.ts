// Each activity's one-line summary in the Web UI. Replay does not compare summaries, so rewording one needs no
// patch. Only ids, names and counts go in one: never a request body, a prompt or a secret.
import type { ActivityFunction } from '@temporalio/common';
import type { ActivityFunctionWithOptions, LocalActivityFunctionWithOptions } from '@temporalio/workflow';
import { afterReset } from './retry-policies';

export const MAX_ACTIVITY_SUMMARY_CHARS = 200;

// The Web UI shows a waiting poll as "Attempt N / ∞" in the retry colour, which would read as a failure.
export const WAITING = 'waiting: each attempt is one poll, a retry is the next poll';

export function activitySummary(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_ACTIVITY_SUMMARY_CHARS ? line : `${line.slice(0, MAX_ACTIVITY_SUMMARY_CHARS - 1)}…`;
}

export function summarized<F extends ActivityFunction>(
  fn: ActivityFunctionWithOptions<F> | LocalActivityFunctionWithOptions<F>,
  summary: string,
): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>> {
  return (...args) => fn.executeWithOptions({ summary: activitySummary(summary) }, args);
}

/** A paid call, summarized, and marked `afterReset` in a run that a reset started. */
export function paidCall<I extends object, R>(
  fn: ActivityFunctionWithOptions<(input: I) => Promise<R>>,
  summary: string,
): (input: I) => Promise<R> {
  return (input) => {
    const { options, mark } = afterReset();
    return fn.executeWithOptions({ summary: activitySummary(summary), ...options }, [{ ...input, ...mark }]);
  };
}
