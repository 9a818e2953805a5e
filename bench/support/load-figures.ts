// Figures of one load run, all read from outside the worker: its process (/proc), the server's
// metrics and describe(). The same figures for any workflow type, so mediaGeneration can be set
// beside the SDK's floor (a workflow that only waits on a timer).
import { mb, spanFigures, type ProcSample } from './proc-stats';
import { topOperations, type RequestsRecorder } from './server-metrics';
import { mean, round } from './stats';
import type { LoadRun } from './workflow-load';
import type { WorkerProcess } from './worker-process';

export interface WorkerFigures {
  workflowType: string;
  workflows: number;
  completed: number;
  /** Most workflows open at once (from the server's start and close times). */
  peakOpen: number;
  startsPerSecond: number;
  /** The worker's RSS before the first start, its sampled peak during the run, and the kernel's lifetime high-water mark. */
  rssIdleMb: number;
  rssPeakMb: number;
  rssHwmMb: number;
  /** (peak - idle) / peak open. */
  rssPerOpenWorkflowKb: number;
  /** Worker CPU (user + system, all threads) from the first start until every workflow closed. */
  cpuS: number;
  /** What the idle worker spends (its pollers): not counted in cpuMsPerStart. */
  idleCpuMsPerS: number;
  /** (CPU - idle CPU over the same time) / workflows started: each workflow's whole life, start to close. */
  cpuMsPerStart: number;
  historyEventsPerTask: number;
  historyEventsMax: number;
  /** From the first start to the last close. */
  makespanS: number;
}

export interface IdleReading {
  /** The last reading before the first start. */
  sample: ProcSample;
  cpuMsPerS: number;
}

/** The worker left alone to settle after its start, then for `ms`: its RSS and the CPU its pollers use. */
export async function readIdle(proc: WorkerProcess, ms = 3_000, settleMs = 2_000): Promise<IdleReading> {
  await new Promise((r) => setTimeout(r, settleMs));
  const first = proc.sampler.sample()!;
  await new Promise((r) => setTimeout(r, ms));
  const sample = proc.sampler.sample()!;
  return { sample, cpuMsPerS: (sample.cpuMs - first.cpuMs) / ((sample.at - first.at) / 1000) };
}

/** The worker's memory and CPU over a load run, measured against its idle reading just before the first start. */
export function workerFigures(
  workflowType: string,
  proc: WorkerProcess,
  idleReading: IdleReading,
  load: LoadRun,
): WorkerFigures {
  const idle = idleReading.sample;
  const started = load.workflows.filter((w) => !w.startError);
  const closed = started.filter((w) => w.closedAt !== undefined);
  const samples = [idle, ...proc.sampler.between(idle.at + 1, load.allClosedSeenAt + 1_000)];
  const span = spanFigures(samples);
  const seconds = (samples[samples.length - 1].at - idle.at) / 1000;
  const busyCpuMs = Math.max(0, span.cpuMs - idleReading.cpuMsPerS * seconds);
  const open = peakOverlap(started.map((w) => ({ from: w.startAcceptedAt, to: w.closedAt ?? Infinity })));
  const histories = started.map((w) => w.historyLength ?? 0);
  const lastClose = closed.reduce((last, w) => Math.max(last, w.closedAt!), load.firstStartAt);
  return {
    workflowType,
    workflows: load.workflows.length,
    completed: started.filter((w) => w.status === 'COMPLETED').length,
    peakOpen: open,
    startsPerSecond: load.startsPerSecond,
    rssIdleMb: mb(idle.rssBytes),
    rssPeakMb: mb(span.rssPeakBytes),
    rssHwmMb: mb(span.hwmBytes),
    rssPerOpenWorkflowKb: open ? Math.round((span.rssPeakBytes - idle.rssBytes) / 1024 / open) : 0,
    cpuS: round(span.cpuMs / 1000),
    idleCpuMsPerS: round(idleReading.cpuMsPerS, 1),
    cpuMsPerStart: started.length ? round(busyCpuMs / started.length, 1) : 0,
    historyEventsPerTask: round(mean(histories), 1),
    historyEventsMax: histories.reduce((a, b) => Math.max(a, b), 0),
    makespanS: round((lastClose - load.firstStartAt) / 1000),
  };
}

/** Most intervals open at the same moment. */
function peakOverlap(intervals: Array<{ from: number; to: number }>): number {
  const edges = intervals.flatMap((i) => [
    { at: i.from, d: 1 },
    { at: i.to, d: -1 },
  ]);
  // Closes before opens at the same instant: touching intervals do not overlap.
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let open = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (open += e.d));
  return peak;
}

/** mediaGeneration over the floor, for the per-workflow figures. */
export function ratioToFloor(
  ours: WorkerFigures,
  floor: WorkerFigures,
): { rssPerOpenWorkflow: number | null; cpuMsPerStart: number | null } {
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b) : null);
  return {
    rssPerOpenWorkflow: ratio(ours.rssPerOpenWorkflowKb, floor.rssPerOpenWorkflowKb),
    cpuMsPerStart: ratio(ours.cpuMsPerStart, floor.cpuMsPerStart),
  };
}

export interface ServerRequestFigures {
  /** Requests to the frontend per waiting task per minute, while every task of the run was waiting. */
  perWaitingTaskPerMinute: number | null;
  /** The span measured (real epoch ms, trimmed to the server's metrics scrapes), or why there is none. */
  window: { from: string; to: string; seconds: number; waitingTasks: number } | { none: string };
  requestsInWindow: number;
  topInWindow: Array<{ operation: string; requests: number }>;
  /** Every frontend request of the run, per task started (starts, waiting, results and all). */
  perTaskWholeRun: number;
  /**
   * Every request of the run over the minutes tasks spent waiting, summed: defined even when no span
   * has every task waiting at once (short tasks, slow starts), but starts and ends count in it too.
   */
  perWaitingTaskMinuteWholeRun: number | null;
  topWholeRun: Array<{ operation: string; requests: number }>;
  /** The benchmark's own requests during a run (its completion watch), left out of every figure. */
  excluded: string[];
}

/**
 * Operations only the benchmark makes while a run is measured (its completion watch). Its describe()s come after the
 * last scrape counted, and a media poll's worker describes its run before a read after a wait.
 */
const BENCH_OPERATIONS = ['CountWorkflowExecutions'];

/**
 * Server requests per waiting task per minute, over the span when every task was waiting: from the
 * last task's start (plus a short settle, `trimStartMs`, for the work that follows a start) until the
 * first task's end. `waits` are each task's wait, in real epoch ms.
 */
export function serverRequestFigures(
  recorder: RequestsRecorder,
  waits: Array<{ from: number; to: number }>,
  run: { from: number; to: number; tasks: number },
  trim: { startMs: number; endMs?: number },
): ServerRequestFigures {
  const drop = (byOp: Record<string, number>) =>
    Object.fromEntries(Object.entries(byOp).filter(([op]) => !BENCH_OPERATIONS.includes(op)));
  const sum = (byOp: Record<string, number>) => Object.values(byOp).reduce((a, b) => a + b, 0);
  // Up to the moment every workflow was seen closed: the benchmark reads them back after that.
  const whole = recorder.between(run.from - 2_000, run.to);
  const wholeOps = drop(whole?.byOperation ?? {});
  const waitingMinutes = waits.reduce((a, w) => a + Math.max(0, w.to - w.from), 0) / 60_000;
  const base = {
    perTaskWholeRun: run.tasks ? round(sum(wholeOps) / run.tasks, 1) : 0,
    perWaitingTaskMinuteWholeRun: waitingMinutes > 0 ? round(sum(wholeOps) / waitingMinutes, 3) : null,
    topWholeRun: topOperations(wholeOps),
    excluded: BENCH_OPERATIONS,
  };
  const none = (why: string): ServerRequestFigures => ({
    perWaitingTaskPerMinute: null,
    window: { none: why },
    requestsInWindow: 0,
    topInWindow: [],
    ...base,
  });
  if (waits.length === 0) return none('no task waited');
  const lastStart = waits.reduce((a, w) => Math.max(a, w.from), -Infinity);
  const firstEnd = waits.reduce((a, w) => Math.min(a, w.to), Infinity);
  const from = lastStart + Math.min(trim.startMs, (firstEnd - lastStart) / 5);
  const to = firstEnd - (trim.endMs ?? 0);
  const delta = to - from >= 3_000 ? recorder.between(from, to) : undefined;
  if (!delta || delta.to - delta.from < 2_000) {
    return none(
      `every task was waiting only from ${new Date(lastStart).toISOString()} to ${new Date(firstEnd).toISOString()}: ` +
        'too short a span between two metrics scrapes',
    );
  }
  const ops = drop(delta.byOperation);
  const requests = sum(ops);
  const minutes = (delta.to - delta.from) / 60_000;
  return {
    perWaitingTaskPerMinute: round(requests / waits.length / minutes, 3),
    window: {
      from: new Date(delta.from).toISOString(),
      to: new Date(delta.to).toISOString(),
      seconds: round((delta.to - delta.from) / 1000, 1),
      waitingTasks: waits.length,
    },
    requestsInWindow: requests,
    topInWindow: topOperations(ops),
    ...base,
  };
}
