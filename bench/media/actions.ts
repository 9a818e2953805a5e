// Temporal Cloud Actions per generation, counted by the rules of
// https://docs.temporal.io/cloud/actions (docs/benchmarks.md lists them): from each run's history what
// it records (start, each activity's scheduling and attempts, timers, signals, updates, search
// attribute upserts, child workflows, markers), and from the server's request counters what it does
// not (heartbeats that reached the server, queries).
import type { Client } from '@temporalio/client';
import { mapBounded } from '../../src/shared/lanes';
import { EventType, type HistoryEvent } from '../support/history-phases';
import type { RequestsRecorder } from '../support/server-metrics';
import { round } from '../support/stats';
import type { LoadRun } from '../support/workflow-load';

/** Actions of one run by kind, as its history records them. */
export interface HistoryActions {
  workflowStarts: number;
  /** Each activity scheduled is one; each attempt after its first, one more. */
  activityAttempts: number;
  timers: number;
  signals: number;
  updates: number;
  /** Upserts of TemporalChangeVersion alone are free. */
  searchAttributeUpserts: number;
  /** Two per child: the intent and the start. */
  childWorkflows: number;
  /** Every marker of one workflow task counts once (local activities, side effects, patches). */
  markerTasks: number;
  optionsUpdates: number;
}

type ActionKind = keyof HistoryActions | 'heartbeats' | 'queries';

export interface ActionFigures {
  /** Mean per completed generation. */
  perGeneration: number;
  /** With Fairness enabled in the namespace: 0.1 Action more per Action. */
  perGenerationFairnessOn: number;
  byKind: Record<ActionKind, number>;
  /** Per generation: activity attempts by activity type, upserts by the attributes they set, markers by name. */
  attemptsByActivity: Record<string, number>;
  upsertsByAttributes: Record<string, number>;
  markersByName: Record<string, number>;
  generations: number;
}

/** Server operations billed as Actions that no history records. */
const HEARTBEAT_OPERATIONS = ['RecordActivityTaskHeartbeat', 'RecordActivityTaskHeartbeatById'];
const QUERY_OPERATIONS = ['QueryWorkflow'];
const CHANGE_VERSION = 'TemporalChangeVersion';
const FAIRNESS_SURCHARGE = 0.1;

const num = (v: unknown): number => Number(v ?? 0);

/** Sums of what each run billed, by activity type, upserted attributes and marker name. */
export interface ActionDetail {
  attemptsByActivity: Record<string, number>;
  upsertsByAttributes: Record<string, number>;
  markersByName: Record<string, number>;
}

const perGeneration = (sums: Record<string, number>, n: number) =>
  Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, round(v / n)]));

const add = (to: Record<string, number>, key: string, n = 1) => void (to[key] = (to[key] ?? 0) + n);

export function historyActions(
  events: readonly HistoryEvent[],
  detail: ActionDetail = { attemptsByActivity: {}, upsertsByAttributes: {}, markersByName: {} },
): HistoryActions {
  const counts: HistoryActions = {
    workflowStarts: 0,
    activityAttempts: 0,
    timers: 0,
    signals: 0,
    updates: 0,
    searchAttributeUpserts: 0,
    childWorkflows: 0,
    markerTasks: 0,
    optionsUpdates: 0,
  };
  const startedAttempt = new Map<number, number>();
  for (const e of events) {
    const started = e.activityTaskStartedEventAttributes;
    if (started) startedAttempt.set(num(started.scheduledEventId), num(started.attempt));
  }
  const markerTasks = new Set<number>();
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        counts.workflowStarts++;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        // An attempt still to come is not billed yet; the scheduling is.
        const attempts = Math.max(1, startedAttempt.get(num(e.eventId)) ?? 1);
        const type = e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'unknown';
        add(detail.attemptsByActivity, type, attempts);
        counts.activityAttempts += attempts;
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        counts.timers++;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        counts.signals++;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        counts.updates++;
        break;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
        const keys = Object.keys(fields).filter((k) => k !== CHANGE_VERSION);
        if (keys.length > 0) {
          counts.searchAttributeUpserts++;
          add(detail.upsertsByAttributes, keys.sort().join('+'));
        }
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        counts.childWorkflows += 2;
        break;
      case EventType.EVENT_TYPE_MARKER_RECORDED:
        markerTasks.add(num(e.markerRecordedEventAttributes?.workflowTaskCompletedEventId));
        add(detail.markersByName, e.markerRecordedEventAttributes?.markerName ?? 'unknown');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
        counts.optionsUpdates++;
        break;
    }
  }
  counts.markerTasks = markerTasks.size;
  return counts;
}

/**
 * The Actions of a load's completed runs, per generation: their histories, and the heartbeats and
 * queries the server counted from the load's first start until all had closed (phases run one at a
 * time, so these are the load's own).
 */
export async function loadActions(
  client: Client,
  load: LoadRun,
  recorder: RequestsRecorder,
  /** Told each history read, for other figures from the same reads. */
  onHistory?: (events: readonly HistoryEvent[]) => void,
): Promise<ActionFigures> {
  const completed = load.workflows.filter((w) => w.status === 'COMPLETED');
  const detail: ActionDetail = { attemptsByActivity: {}, upsertsByAttributes: {}, markersByName: {} };
  const runs = await mapBounded(completed, 32, async (w) => {
    const events = (await client.workflow.getHandle(w.workflowId).fetchHistory()).events ?? [];
    onHistory?.(events);
    return historyActions(events, detail);
  });
  const n = Math.max(1, runs.length);
  const ops = recorder.between(load.firstStartAt - 2_000, load.allClosedSeenAt)?.byOperation ?? {};
  const summed = (names: string[]) => names.reduce((a, op) => a + (ops[op] ?? 0), 0);
  const byKind: Record<ActionKind, number> = { ...historyActions([]), heartbeats: 0, queries: 0 };
  for (const run of runs) {
    for (const [k, v] of Object.entries(run)) byKind[k as ActionKind] += v;
  }
  byKind.heartbeats = summed(HEARTBEAT_OPERATIONS);
  byKind.queries = summed(QUERY_OPERATIONS);
  let total = 0;
  for (const k of Object.keys(byKind) as ActionKind[]) {
    total += byKind[k];
    byKind[k] = round(byKind[k] / n);
  }
  return {
    perGeneration: round(total / n),
    perGenerationFairnessOn: round((total / n) * (1 + FAIRNESS_SURCHARGE)),
    byKind,
    attemptsByActivity: perGeneration(detail.attemptsByActivity, n),
    upsertsByAttributes: perGeneration(detail.upsertsByAttributes, n),
    markersByName: perGeneration(detail.markersByName, n),
    generations: runs.length,
  };
}
