// Where a workflow's time goes, read from its history's server timestamps: named moments per run
// (start, first workflow task, an activity scheduled/started/ended) and, over many runs, the p50 and
// p95 of each phase between two of them.
import { temporal } from '@temporalio/proto';
import { percentile } from './stats';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export const EventType = temporal.api.enums.v1.EventType;

/** Phase name → p50 and p95 in ms. */
export type PhaseFigures = Record<string, { p50: number; p95: number }>;

/** Named moments of one run, in epoch ms; undefined or NaN when the run never got there. */
export type Moments = Record<string, number | undefined>;

export const eventMs = (e: HistoryEvent | undefined): number =>
  e?.eventTime ? Number(e.eventTime.seconds ?? 0) * 1000 + Math.round((e.eventTime.nanos ?? 0) / 1e6) : NaN;

export const firstEventMs = (events: readonly HistoryEvent[], type: temporal.api.enums.v1.EventType): number =>
  eventMs(events.find((e) => e.eventType === type));

/** The start, the first workflow task's start and end. */
export function workflowMoments(events: readonly HistoryEvent[]): Moments {
  return {
    started: firstEventMs(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
    firstTask: firstEventMs(events, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
    firstTaskDone: firstEventMs(events, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
  };
}

/** The first activity of `activityType`: when it was scheduled, started (its last attempt) and ended. */
export function activityMoments(
  events: readonly HistoryEvent[],
  activityType: string,
): { scheduled: number; started: number; ended: number } {
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType);
  const of = (pick: (e: HistoryEvent) => { scheduledEventId?: unknown } | null | undefined) =>
    eventMs(events.find((e) => scheduled != null && Number(pick(e)?.scheduledEventId) === Number(scheduled.eventId)));
  return {
    scheduled: eventMs(scheduled),
    started: of((e) => e.activityTaskStartedEventAttributes),
    ended: of(
      (e) =>
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes,
    ),
  };
}

/** p50 and p95 of `to - from` per phase, over the runs that reached both moments. */
export function phaseFigures(
  rows: readonly Moments[],
  phases: Record<string, [from: string, to: string]>,
): PhaseFigures {
  return Object.fromEntries(
    Object.entries(phases).map(([name, [from, to]]) => {
      const spans = rows.flatMap((r) => {
        const span = (r[to] ?? NaN) - (r[from] ?? NaN);
        return Number.isFinite(span) ? [span] : [];
      });
      return [name, { p50: Math.round(percentile(spans, 50)), p95: Math.round(percentile(spans, 95)) }];
    }),
  );
}

/** `name  p50 … ms  p95 … ms` lines. */
export function formatPhases(phases: PhaseFigures): string {
  const width = Math.max(...Object.keys(phases).map((n) => n.length));
  return Object.entries(phases)
    .map(
      ([name, { p50, p95 }]) =>
        `  ${name.padEnd(width)}  p50 ${String(p50).padStart(6)} ms  p95 ${String(p95).padStart(6)} ms`,
    )
    .join('\n');
}
