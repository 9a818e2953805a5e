// One line that says where a mediaGeneration stands, from its `mediaProgress` query. Pure (the time
// is a parameter), so the countdowns and the bar can be tested without a workflow or a clock.
import type { MediaProgress } from '../workflows/media/contract';

/** Statuses after which nothing is polled any more (set by src/workflows/media/workflows.ts). */
const FINAL_MEDIA_STATUSES: readonly string[] = ['SUCCEEDED', 'FAILED'];

/**
 * Statuses that mean the generation itself is complete: the bar is full even when the platform
 * never reported a progress percent (it is optional in the task result).
 */
const GENERATED_STATUSES: readonly string[] = ['GENERATED', 'KEEPING_OUTPUTS', 'SUCCEEDED'];

const DEFAULT_BAR_WIDTH = 20;

/** `12s`, `3m05s`, `2h07m`: short enough to keep the line from jumping around. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `[######----]  52%`, or an empty bar and `?%` before the platform reports any progress. */
export function renderBar(percent: number | undefined, width: number = DEFAULT_BAR_WIDTH): string {
  const cells = Math.max(0, Math.floor(width));
  const clamped = percent === undefined || !Number.isFinite(percent) ? undefined : Math.min(100, Math.max(0, percent));
  // Floor, so neither the number nor the bar says 100% (done) while the task is not.
  const label = (clamped === undefined ? '?' : String(Math.floor(clamped))).padStart(3) + '%';
  if (cells === 0) return label;
  const filled = clamped === undefined ? 0 : Math.floor((clamped / 100) * cells);
  return `[${'#'.repeat(filled)}${'-'.repeat(cells - filled)}]  ${label}`;
}

const parseTime = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/**
 * The platform's eta is seconds left as of the poll that reported it; counting down from that poll
 * keeps the display moving between polls, which may be minutes apart.
 */
function etaLeft(p: MediaProgress, now: number): number | undefined {
  if (p.eta === undefined) return undefined;
  const observedAt = parseTime(p.observedAt);
  const elapsed = observedAt === undefined ? 0 : Math.max(0, (now - observedAt) / 1000);
  return Math.max(0, p.eta - elapsed);
}

/**
 * E.g. `PROCESSING  [##########----------]  52%  eta 12s  polls 4  next poll in 3s  task abc`.
 * `width` is the bar's width in cells (0 leaves the bar out).
 */
export function renderMediaProgress(p: MediaProgress, now: number, width: number = DEFAULT_BAR_WIDTH): string {
  const status = p.status ?? 'STARTING';
  const final = FINAL_MEDIA_STATUSES.includes(status);
  const percent = p.progressPercent ?? (GENERATED_STATUSES.includes(status) ? 100 : undefined);
  const parts = [status, renderBar(percent, width)];

  // Countdowns only while the task is being waited for: after the end they would be stale.
  const waiting = !final && !GENERATED_STATUSES.includes(status);
  const eta = waiting ? etaLeft(p, now) : undefined;
  if (eta !== undefined) parts.push(`eta ${formatSeconds(eta)}`);
  parts.push(`polls ${p.polls}`);
  const nextPollAt = waiting ? parseTime(p.nextPollAt) : undefined;
  if (nextPollAt !== undefined) {
    parts.push(nextPollAt > now ? `next poll in ${formatSeconds((nextPollAt - now) / 1000)}` : 'polling now');
  }
  // Rare, and worth seeing: a task generated again, or a submit that took more than one attempt.
  if (p.generation > 1) parts.push(`generation ${p.generation}`);
  if (p.submissions > 1) parts.push(`submissions ${p.submissions}`);
  if (p.taskId !== undefined) parts.push(`task ${p.taskId}`);
  return parts.join('  ');
}
