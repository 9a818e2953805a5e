// One line that says where a batchJob stands, from its `batchProgress` query. Pure (the time is a
// parameter), so it is tested without a workflow or a clock.
import type { BatchProgress } from '../api';
import { formatSeconds, renderBar } from './progress';

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
