// Puts a load of N workflows on the stack and reads it back from outside: starts them (all at once or
// paced over a window), waits until the server's visibility shows every one closed - one count
// request a second, never a result long-poll per workflow, which would be server load of the
// benchmark's own making - then describes each (history length, start and close times) and fetches
// the result of the completed ones.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { mapBounded } from '../../src/shared/lanes';
import { phaseFigures, workflowMoments, type PhaseFigures } from './history-phases';

export interface LoadOptions {
  client: Client;
  taskQueue: string;
  workflowType: string;
  /** Workflow ids are `<idPrefix>-<i>`. */
  idPrefix: string;
  count: number;
  /** The starts are spread evenly over this window; 0 starts them all at once. */
  startWindowMs: number;
  args: (i: number) => unknown[];
  /** More of the start's options (search attributes, priority, summary), as a client of the service gives them. */
  startOptions?: (i: number, workflowId: string) => object;
  /** How long to wait, after the last start, for every workflow to close. */
  closeTimeoutMs: number;
  /** Fetch each completed workflow's result (for timings the workflow reports). */
  withResults: boolean;
  log: (msg: string) => void;
  /** Why waiting on is pointless (the worker is gone), or undefined: checked while waiting for the closes. */
  lost?: () => string | undefined;
}

export interface LoadedWorkflow {
  workflowId: string;
  index: number;
  /** Real epoch ms: the start was due (what a caller experiences from), and the server took it. */
  startedAt: number;
  startAcceptedAt: number;
  /** Absent when the start itself failed. */
  startError?: string;
  status?: string;
  historyLength?: number;
  /** The server's close time (real epoch ms): when any caller waiting on the result has it. */
  closedAt?: number;
  result?: unknown;
  /** Closed but not COMPLETED: why, from its result (the failure and its causes). */
  failure?: string;
}

export interface LoadRun {
  workflows: LoadedWorkflow[];
  firstStartAt: number;
  /** The last start accepted by the server. */
  lastStartAt: number;
  startsPerSecond: number;
  /** When the count first showed every workflow closed, or the timeout. */
  allClosedSeenAt: number;
  timedOut: boolean;
}

/** A closed workflow's failure and its causes, one line. */
async function failureOf(handle: WorkflowHandle): Promise<string> {
  try {
    await handle.result();
    return 'completed';
  } catch (err) {
    const parts: string[] = [];
    for (let e: unknown = err; e instanceof Error && parts.length < 5; e = e.cause) parts.push(e.message);
    return parts.join(' <- ');
  }
}

/** Start attempts per workflow: a start the server was too busy to answer in time is made again. */
const START_ATTEMPTS = 5;

/**
 * Starts one workflow as a backend would: again after a failed call (its id makes that safe), and a
 * workflow already started under that id is this start, answered late.
 */
export async function startOnce(
  o: Pick<LoadOptions, 'client' | 'taskQueue' | 'workflowType'>,
  workflowId: string,
  args: unknown[],
  more: object = {},
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await o.client.workflow.start(o.workflowType, { ...more, taskQueue: o.taskQueue, workflowId, args });
      return;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError && attempt > 1) return;
      if (attempt >= START_ATTEMPTS) throw err;
      await sleep(1_000 * attempt);
    }
  }
}

export async function runWorkflowLoad(o: LoadOptions): Promise<LoadRun> {
  const firstStartAt = Date.now();
  const starts: Array<Promise<LoadedWorkflow>> = [];
  for (let i = 0; i < o.count; i++) {
    const due = firstStartAt + (o.startWindowMs * i) / o.count;
    if (due > Date.now()) await sleep(due - Date.now());
    const workflowId = `${o.idPrefix}-${i}`;
    const startedAt = Date.now();
    starts.push(
      startOnce(o, workflowId, o.args(i), o.startOptions?.(i, workflowId)).then(
        () => ({ workflowId, index: i, startedAt, startAcceptedAt: Date.now() }),
        (err: unknown) => ({
          workflowId,
          index: i,
          startedAt,
          startAcceptedAt: Date.now(),
          startError: err instanceof Error ? err.message : String(err),
        }),
      ),
    );
    if (o.count >= 1000 && (i + 1) % Math.round(o.count / 10) === 0) o.log(`${i + 1} of ${o.count} started…`);
  }
  const workflows = await Promise.all(starts);
  const lastStartAt = workflows.reduce((last, w) => Math.max(last, w.startAcceptedAt), firstStartAt);
  const accepted = workflows.filter((w) => !w.startError).length;
  if (accepted < o.count)
    o.log(`${o.count - accepted} starts failed, e.g. ${workflows.find((w) => w.startError)?.startError}`);

  // This load's own workflows only (by id): a benchmark may run several phases on one task queue, and
  // counting the closes of an earlier phase ended the wait of the next one at once (its workers were
  // stopped with every workflow still open).
  const closedQuery =
    `TaskQueue="${o.taskQueue}" AND WorkflowType="${o.workflowType}" AND ` +
    `WorkflowId STARTS_WITH "${o.idPrefix}-" AND ExecutionStatus!="Running"`;
  const deadline = lastStartAt + o.closeTimeoutMs;
  let closed = 0;
  let lastReport = Date.now();
  let lost: string | undefined;
  while (Date.now() < deadline) {
    closed = (await o.client.workflow.count(closedQuery)).count;
    if (closed >= accepted) break;
    if ((lost = o.lost?.())) break;
    if (Date.now() - lastReport > 30_000) {
      o.log(`${closed} of ${accepted} closed…`);
      lastReport = Date.now();
    }
    await sleep(1_000);
  }
  const allClosedSeenAt = Date.now();
  const timedOut = closed < accepted;
  if (timedOut) {
    o.log(
      `only ${closed} of ${accepted} closed ` +
        (lost ? `when ${lost}` : `within ${o.closeTimeoutMs / 1000} s of the last start`),
    );
  }

  await mapBounded(
    workflows.filter((w) => !w.startError),
    32,
    async (w) => {
      const handle = o.client.workflow.getHandle(w.workflowId);
      const d: WorkflowExecutionDescription = await handle.describe();
      w.status = d.status.name;
      w.historyLength = d.historyLength;
      w.closedAt = d.closeTime?.getTime();
      if (o.withResults && d.status.name === 'COMPLETED') w.result = await handle.result();
      if (d.closeTime && d.status.name !== 'COMPLETED') w.failure = await failureOf(handle);
    },
  );
  // A benchmark that loses a workflow must say why, or the run cannot be read afterwards.
  const failed = workflows.filter((w) => w.failure !== undefined);
  for (const w of failed.slice(0, 5)) o.log(`${w.workflowId} did not complete: ${w.status}: ${w.failure}`);
  if (failed.length > 5) o.log(`…and ${failed.length - 5} more that did not complete`);
  return {
    workflows,
    firstStartAt,
    lastStartAt,
    startsPerSecond: Math.round((accepted / Math.max(0.001, (lastStartAt - firstStartAt) / 1000)) * 10) / 10,
    allClosedSeenAt,
    timedOut,
  };
}

/**
 * What the SDK's floor did, from each completed run's history (server times): when it waited on its
 * timer (TimerStarted to TimerFired, its only wait), and where the time went before its first command,
 * the timer: the floor's own "submit lag", beside mediaGeneration's.
 */
export async function floorHistories(
  client: Client,
  workflows: LoadedWorkflow[],
): Promise<{ waits: Array<{ from: number; to: number }>; startPhases: PhaseFigures }> {
  const runs = await mapBounded(
    workflows.filter((w) => w.status === 'COMPLETED'),
    32,
    async (w) => {
      const events = (await client.workflow.getHandle(w.workflowId).fetchHistory()).events ?? [];
      const from = optionalTsToMs(events.find((e) => e.timerStartedEventAttributes)?.eventTime);
      const to = optionalTsToMs(events.find((e) => e.timerFiredEventAttributes)?.eventTime);
      return {
        wait: from !== undefined && to !== undefined ? [{ from, to }] : [],
        moments: { called: w.startedAt, ...workflowMoments(events), timerStarted: from },
      };
    },
  );
  return {
    waits: runs.flatMap((r) => r.wait),
    startPhases: phaseFigures(
      runs.map((r) => r.moments),
      {
        'start called → server started it': ['called', 'started'],
        'started → first workflow task runs': ['started', 'firstTask'],
        'first workflow task runs': ['firstTask', 'firstTaskDone'],
        'start called → its timer started': ['called', 'timerStarted'],
      },
    ),
  };
}
