// The Temporal peer in the media-polling benchmark (./peer-workflows.ts), and the figures that set
// ours beside it and the SDK's floor, each per generation, as docs/benchmarks.md's table shows them.
import type { Client } from '@temporalio/client';
import { loadActions, type ActionFigures } from './actions';
import type { TaskRun } from './plain-runs';
import { taskRuns } from './temporal-run';
import type { PeerGenerationResult } from './peer-workflows';
import type { ModeFigures } from './plain-runs';
import { atMost, isTrue, type Check } from '../support/checks';
import { EventType, firstEventMs, type HistoryEvent } from '../support/history-phases';
import {
  readIdle,
  serverRequestFigures,
  workerFigures,
  type ServerRequestFigures,
  type WorkerFigures,
} from '../support/load-figures';
import type { RequestsRecorder } from '../support/server-metrics';
import type { BenchWorker } from '../support/stack';
import { percentile, round } from '../support/stats';
import { runWorkflowLoad, type LoadOptions, type LoadRun } from '../support/workflow-load';
import { WORKER_KIND_ENV } from '../support/worker-main';

const PEER_VARIANTS = {
  frequent: 'peerFrequentPolling',
  infrequent: 'peerInfrequentPolling',
} as const;
export type PeerVariant = keyof typeof PEER_VARIANTS;

/** A task queue of its own (./peer-worker.ts says why). */
const peerTaskQueue = (taskQueue: string): string => `${taskQueue}-peer`;

/** The peer worker's environment: its kind, and its task queue. */
const peerWorkerEnv = (taskQueue: string): Record<string, string> => ({
  [WORKER_KIND_ENV]: 'peer',
  TEMPORAL_TASK_QUEUE: peerTaskQueue(taskQueue),
});

function peerLoad(
  o: Omit<LoadOptions, 'workflowType' | 'args' | 'withResults' | 'startWindowMs' | 'taskQueue'> & {
    taskQueue: string;
    variant: PeerVariant;
    prompt: (i: number) => string;
  },
): Promise<LoadRun> {
  return runWorkflowLoad({
    ...o,
    taskQueue: peerTaskQueue(o.taskQueue),
    workflowType: PEER_VARIANTS[o.variant],
    startWindowMs: 0,
    args: (i) => [{ prompt: o.prompt(i) }],
    withResults: true,
  });
}

/** One TaskRun per completed peer workflow (its polls: the emulator's count, filled in later). */
const peerTaskRuns = (load: LoadRun): TaskRun[] =>
  taskRuns<PeerGenerationResult>(load, (r) => ({
    taskId: r.taskId,
    submittedAt: r.submittedAt,
    detectedAt: r.doneAt,
    polls: 0,
  }));

/** The floor's "detection": from its timer firing to its run completing (its history's times). */
export function floorDetection(): { onHistory: (events: readonly HistoryEvent[]) => void; p95: () => number } {
  const spans: number[] = [];
  return {
    onHistory: (events) => {
      const span =
        firstEventMs(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) -
        firstEventMs(events, EventType.EVENT_TYPE_TIMER_FIRED);
      if (Number.isFinite(span)) spans.push(span);
    },
    p95: () => Math.round(percentile(spans, 95)),
  };
}

export interface GenerationFigures {
  cpuMsPerGeneration: number;
  serverRequestsPerGeneration: number;
  actionsPerGeneration: number;
  pollsPerGeneration: number;
  detectionP95Ms: number;
  rssPerOpenWorkflowKb: number;
  submitLagP95Ms: number;
  makespanS: number;
  /** What the Actions are, per generation. */
  actions: Omit<ActionFigures, 'perGeneration' | 'perGenerationFairnessOn'>;
}

export function generationFigures(
  worker: WorkerFigures,
  server: ServerRequestFigures,
  actions: ActionFigures,
  mode: Pick<ModeFigures, 'pollsPerTask' | 'detectionP95Ms' | 'submitLagP95Ms'>,
): GenerationFigures {
  const { perGeneration, perGenerationFairnessOn: _, ...breakdown } = actions;
  return {
    cpuMsPerGeneration: worker.cpuMsPerStart,
    serverRequestsPerGeneration: server.perTaskWholeRun,
    actionsPerGeneration: perGeneration,
    pollsPerGeneration: mode.pollsPerTask,
    detectionP95Ms: mode.detectionP95Ms,
    rssPerOpenWorkflowKb: worker.rssPerOpenWorkflowKb,
    submitLagP95Ms: mode.submitLagP95Ms,
    makespanS: worker.makespanS,
    actions: breakdown,
  };
}

/** The figures compared in the table, in its order. */
export const COMPARED = [
  'cpuMsPerGeneration',
  'serverRequestsPerGeneration',
  'actionsPerGeneration',
  'pollsPerGeneration',
  'detectionP95Ms',
  'rssPerOpenWorkflowKb',
  'submitLagP95Ms',
  'makespanS',
] as const;

/** `figure` of `other` over ours; null when ours is 0. */
export const ratioToOurs = (ours: GenerationFigures, other: GenerationFigures, figure: (typeof COMPARED)[number]) =>
  ours[figure] > 0 ? round(other[figure] / ours[figure]) : null;

export type PeerFigures = GenerationFigures & { worker: WorkerFigures; server: ServerRequestFigures };

/** The N generations as the peer's `variant`, on a fresh plain worker process, read as ours are. */
export async function runPeer(
  variant: PeerVariant,
  s: {
    worker: BenchWorker;
    client: Client;
    taskQueue: string;
    recorder: RequestsRecorder;
    tasks: number;
    closeTimeoutMs: number;
    log: (msg: string) => void;
    prompt: (i: number) => string;
    /** The mode's polls, detection and lags from the emulator's records. */
    measure: (
      mode: string,
      runs: TaskRun[],
      makespanMs: number,
    ) => Promise<{ figures: ModeFigures; waits: Array<{ from: number; to: number }> }>;
  },
): Promise<PeerFigures> {
  const mode = `Temporal peer, ${variant} polling`;
  s.log(`${mode}: ${s.tasks} generations on a plain worker process of the same settings…`);
  const run = await s.worker.runUntil(async (proc) => {
    const idle = await readIdle(proc);
    const load = await peerLoad({
      client: s.client,
      taskQueue: s.taskQueue,
      variant,
      idPrefix: `bench-${s.taskQueue}-peer-${variant}`,
      count: s.tasks,
      closeTimeoutMs: s.closeTimeoutMs,
      log: s.log,
      lost: () => proc.lost(),
      prompt: s.prompt,
    });
    return { load, worker: workerFigures(mode, proc, idle, load) };
  }, peerWorkerEnv(s.taskQueue));
  const seen = await s.measure(mode, peerTaskRuns(run.load), run.worker.makespanS * 1000);
  const server = serverRequestFigures(
    s.recorder,
    seen.waits,
    { from: run.load.firstStartAt, to: run.load.allClosedSeenAt, tasks: s.tasks },
    { startMs: 1_000 },
  );
  const actions = await loadActions(s.client, run.load, s.recorder);
  return { ...generationFigures(run.worker, server, actions, seen.figures), worker: run.worker, server };
}

/** The targets against the peer: at or below its cost, a fifth of the frequent one's polls, detection no worse than the infrequent one's. */
export function peerChecks(ours: GenerationFigures, peers: Record<PeerVariant, PeerFigures>, tasks: number): Check[] {
  const checks: Check[] = [];
  for (const [variant, p] of Object.entries(peers)) {
    checks.push(
      isTrue(`Temporal peer, ${variant}: completed`, p.worker.completed === tasks, p.worker.completed, `${tasks}`),
      atMost(`worker CPU ms per generation vs the ${variant} peer`, ours.cpuMsPerGeneration, p.cpuMsPerGeneration),
      atMost(
        `server requests per generation vs the ${variant} peer`,
        ours.serverRequestsPerGeneration,
        p.serverRequestsPerGeneration,
      ),
      atMost(`Actions per generation vs the ${variant} peer`, ours.actionsPerGeneration, p.actionsPerGeneration),
    );
  }
  checks.push(
    atMost(
      'platform polls per generation vs a fifth of the frequent peer',
      ours.pollsPerGeneration,
      round(peers.frequent.pollsPerGeneration / 5),
    ),
    atMost('detection p95 vs the infrequent peer', ours.detectionP95Ms, peers.infrequent.detectionP95Ms, ' ms'),
  );
  return checks;
}
