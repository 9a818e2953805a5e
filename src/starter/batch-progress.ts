// One line that says where a batchJob stands, from its `batchProgress` query, freshened between
// checkpoints by the poll activity's last poll. Pure (the time is a parameter), so it is tested
// without a workflow or a clock.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { BatchObservation, BatchProgress } from '../workflows/batch/contract';
import { isoTime } from '../shared/time';
import { formatSeconds, renderBar } from './progress';

const POLL_ACTIVITY = 'pollBatch';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/**
 * The newest poll of a pending follow activity: the poll activity's last "still running" failure
 * (retry-as-poll). Server state read through describe(), so it costs the workflow no history.
 */
export function lastBatchPoll(pending: readonly PendingActivity[] | null | undefined): BatchObservation | undefined {
  let newest: BatchObservation | undefined;
  for (const a of pending ?? []) {
    const payload =
      a.activityType?.name === POLL_ACTIVITY
        ? a.lastFailure?.applicationFailureInfo?.details?.payloads?.[0]
        : undefined;
    const o = payload ? decode(payload) : undefined;
    if (o && (!newest || o.observedAt > newest.observedAt)) newest = o;
  }
  return newest;
}

function decode(payload: temporal.api.common.v1.IPayload): BatchObservation | undefined {
  try {
    const o = defaultPayloadConverter.fromPayload<BatchObservation | undefined>(payload);
    // A failed poll's details are the platform error, not an observation.
    return o && typeof o.polls === 'number' && typeof o.observedAt === 'number' && o.requestCounts ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The query's progress with a newer poll of the same batch laid over it, until the batch has an outcome. */
export function withLastPoll(progress: BatchProgress, poll: BatchObservation | undefined): BatchProgress {
  if (!poll || progress.outcome || poll.batchId !== progress.batchId) return progress;
  const queried = progress.observedAt ? Date.parse(progress.observedAt) : 0;
  if (poll.observedAt <= queried) return progress;
  return {
    ...progress,
    status: poll.status,
    requestCounts: poll.requestCounts,
    polls: poll.polls,
    observedAt: isoTime(poll.observedAt),
    nextPollAt: isoTime(poll.nextPollAt),
  };
}

export function renderBatchProgress(p: BatchProgress, now: number, width?: number): string {
  const counts = p.requestCounts;
  const done = counts && counts.total > 0 ? ((counts.completed + counts.failed) * 100) / counts.total : undefined;
  const parts = [p.outcome ?? p.status, renderBar(done, width)];
  if (counts) parts.push(`completed ${counts.completed}  failed ${counts.failed}  total ${counts.total}`);
  parts.push(`polls ${p.polls}`);
  const next = p.nextPollAt ? Date.parse(p.nextPollAt) : NaN;
  if (!p.outcome && Number.isFinite(next) && next > now)
    parts.push(`next poll in ${formatSeconds((next - now) / 1000)}`);
  const windowEnd = p.windowEndsAt ? Date.parse(p.windowEndsAt) : NaN;
  if (!p.outcome && Number.isFinite(windowEnd)) parts.push(`window ends in ${formatSeconds((windowEnd - now) / 1000)}`);
  if (p.cancelRequested && !p.outcome) parts.push('cancelling');
  return parts.join('  ');
}

/** After the result: the outcome, the counts, and where the files were kept. */
export function renderBatchSummary(result: unknown): string[] {
  const r = result as {
    outcome?: string;
    requestCounts?: { total: number; completed: number; failed: number };
    output?: { uri: string };
    errors?: { uri: string };
    summary?: { perRequestUri: string };
  };
  if (!r?.outcome || !r.requestCounts) return [];
  const c = r.requestCounts;
  const lines = [`Batch ${r.outcome}: ${c.completed} completed, ${c.failed} failed, ${c.total} in all.`];
  if (r.output) lines.push(`  output       ${r.output.uri}`);
  if (r.errors) lines.push(`  errors       ${r.errors.uri}`);
  if (r.summary) lines.push(`  per request  ${r.summary.perRequestUri}`);
  return lines;
}
