// Waiting at scale: N mediaGeneration workflows of one emulated duration, started at an even pace over
// a start window, on one worker in a process of its own. All must complete. It reports what holding
// them costs while they wait: the worker's peak RSS, polls per task (the emulator's count), history
// events per task, and the server requests per waiting task per minute over the span when every task
// is waiting (the server's own metrics) - against issue 10's targets.
//
// With --cluster, the same on the production topology (PostgreSQL and the Temporal server of
// `npm run cluster`) with two worker processes on the task queue; the RSS target then holds for their sum.
//
//   npm run bench -- --only=waiting-at-scale [--tasks=500] [--duration=60000] [--start-window=30000]
//   npm run bench -- --only=waiting-at-scale --tasks=10000 --duration=600000 --start-window=120000
//   npm run bench -- --only=waiting-at-scale --cluster [--tasks=…]
import { type MediaGenerationInput, WorkflowType } from '@platform-ops/client';
import { mediaLoad, mediaTaskRuns } from './media/temporal-run';
import { formatServerFigures, formatTable, formatWorkerTable } from './media/tables';
import { atMost, formatChecks, isTrue, type Check } from './support/checks';
import {
  readIdle,
  serverRequestFigures,
  workerFigures,
  type ServerRequestFigures,
  type WorkerFigures,
} from './support/load-figures';
import { mb, spanFigures } from './support/proc-stats';
import { RequestsRecorder } from './support/server-metrics';
import { withBenchStack, type BenchStack } from './support/stack';
import { percentile, round } from './support/stats';
import { mapBounded } from '../src/shared/lanes';
import { NO_QUOTAS } from './support/fixtures';

export interface WaitingBenchOptions {
  tasks: number;
  /** Every task's emulated (= real) processing time. */
  durationMs: number;
  /** The starts are spread evenly over this window. */
  startWindowMs: number;
  /** The production topology (PostgreSQL, the Temporal server built from Go) instead of the dev server. */
  cluster: boolean;
  /** Worker processes on the task queue: 1 on the dev server, 2 on the cluster. */
  workers: number;
}

export interface WaitingBenchResult {
  options: WaitingBenchOptions;
  /** The first (on the dev server, the only) worker process. */
  worker: WorkerFigures;
  /** Every worker process; `completed` and `peakOpen` in each count the whole run, not that worker's share. */
  workers: WorkerFigures[];
  /** The workers' RSS peaks added up (each its own peak, so at most what they held at once). */
  workerRssPeakSumMb: number;
  pollsPerTask: number;
  pollsPerTaskMax: number;
  submitLagP95Ms: number;
  detectionP95Ms: number;
  server: ServerRequestFigures;
  /** The Temporal server's own process over the run (on the cluster, PostgreSQL not counted). */
  serverProcess: { kind: 'dev-server' | 'cluster'; rssPeakMb: number; cpuS: number };
  /** The cluster's PostgreSQL over the run: all its processes' CPU, and its data directory before and after. */
  database?: { cpuS: number; sizeStartMb: number; sizeEndMb: number };
  /** First start to last close, and what it would be if every task ended the moment the platform did. */
  makespanS: number;
  idealMakespanS: number;
  checks: Check[];
  passed: boolean;
}

export const WAITING_TARGETS = { workerRssPeakMb: 1_024, pollsPerTask: 3.5, requestsPerWaitingTaskPerMinute: 2 };

export function waitingOptions(opts: Partial<WaitingBenchOptions>): WaitingBenchOptions {
  const tasks = opts.tasks ?? 500;
  const durationMs = opts.durationMs ?? 60_000;
  const cluster = opts.cluster ?? false;
  // Half the duration at most by default, so there is a span when every task waits.
  return {
    tasks,
    durationMs,
    startWindowMs: opts.startWindowMs ?? Math.min(120_000, durationMs / 2),
    cluster,
    workers: opts.workers ?? (cluster ? 2 : 1),
  };
}

export async function runWaitingAtScaleBench(opts: Partial<WaitingBenchOptions> = {}): Promise<WaitingBenchResult> {
  const o = waitingOptions(opts);
  const log = (msg: string) => process.stderr.write(`[waiting-at-scale] ${msg}\n`);
  const fixtures = { ...NO_QUOTAS, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };
  const input = (i: number): MediaGenerationInput => ({
    operation: 'text-to-video',
    request: { prompt: `bench wait ${i} [emulator:duration=${o.durationMs}]` },
    keepOutputs: false,
    // The emulator's eta is exact: nothing should cut a wait short of it.
    polling: { maxIntervalMs: Math.min(3_600_000, Math.max(30_000, o.durationMs)) },
    deadlineSeconds: Math.max(2 * 3600, Math.ceil((2 * o.durationMs + o.startWindowMs) / 1000)),
  });

  const run = async ({ admin, client, taskQueue, worker, server }: BenchStack): Promise<WaitingBenchResult> => {
    // Scrapes of a big metrics page cost the server too: fewer on long runs.
    const recorder = await new RequestsRecorder(
      server.metricsUrl,
      server.namespace,
      o.durationMs >= 120_000 ? 5_000 : 2_000,
    ).start();
    const serverFrom = Date.now();
    const dbFrom = server.database && { cpuMs: server.database.cpuMs(), sizeBytes: server.database.sizeBytes() };
    await admin('POST', '/counters/reset');
    log(
      `${o.tasks} mediaGeneration workflows of ${o.durationMs / 1000} s, started over ${o.startWindowMs / 1000} s, ` +
        `on ${o.workers === 1 ? 'one worker process' : `${o.workers} worker processes`} (${server.kind})…`,
    );
    const run = await worker.runUntilAll(o.workers, async (procs) => {
      const idle = await Promise.all(procs.map((proc) => readIdle(proc)));
      const load = await mediaLoad({
        client,
        taskQueue,
        idPrefix: `bench-${taskQueue}`,
        count: o.tasks,
        startWindowMs: o.startWindowMs,
        closeTimeoutMs: o.durationMs * 1.5 + 10 * 60_000,
        log,
        lost: () => procs.map((proc) => proc.lost()).find(Boolean),
        input,
      });
      return {
        load,
        workers: procs.map((proc, i) => workerFigures(WorkflowType.mediaGeneration, proc, idle[i], load)),
      };
    });
    await recorder.stop();
    const serverProcess = spanFigures(server.sampler.between(serverFrom));
    const database = server.database &&
      dbFrom && {
        cpuS: round((server.database.cpuMs() - dbFrom.cpuMs) / 1000),
        sizeStartMb: mb(dbFrom.sizeBytes),
        sizeEndMb: mb(server.database.sizeBytes()),
      };
    const [first] = run.workers;
    const workerRssPeakSumMb = round(run.workers.reduce((a, w) => a + w.rssPeakMb, 0));

    const counters = await admin<{
      submissions: { total: number };
      polls: { total: number; byTask: Record<string, number> };
    }>('GET', '/counters');
    const runs = mediaTaskRuns(run.load);
    log(`reading ${runs.length} tasks back from the emulator…`);
    const views = await mapBounded(runs, 32, (r) =>
      admin<{ createdAtReal: number; finishedAtReal: number | null }>('GET', `/tasks/${r.taskId}`),
    );
    const waits = views.map((v) => ({ from: v.createdAtReal, to: v.finishedAtReal ?? Date.now() }));
    const serverFigures = serverRequestFigures(
      recorder,
      waits,
      { from: run.load.firstStartAt, to: run.load.allClosedSeenAt, tasks: o.tasks },
      { startMs: 5_000 },
    );
    const pollsPerTask = round(counters.polls.total / Math.max(1, counters.submissions.total));
    const checks: Check[] = [
      isTrue('all complete', first.completed === o.tasks, first.completed, `${o.tasks}`),
      atMost(
        o.workers === 1 ? 'worker RSS peak' : `worker RSS peak, ${o.workers} workers summed`,
        workerRssPeakSumMb,
        WAITING_TARGETS.workerRssPeakMb,
        ' MB',
      ),
      atMost('polls per task', pollsPerTask, WAITING_TARGETS.pollsPerTask),
      atMost(
        'server requests per waiting task per minute',
        serverFigures.perWaitingTaskPerMinute,
        WAITING_TARGETS.requestsPerWaitingTaskPerMinute,
      ),
    ];
    return {
      options: o,
      worker: first,
      workers: run.workers,
      workerRssPeakSumMb,
      pollsPerTask,
      pollsPerTaskMax: Object.values(counters.polls.byTask).reduce((a, b) => Math.max(a, b), 0),
      submitLagP95Ms: Math.round(
        percentile(
          runs.map((r) => r.submittedAt - r.startedAt),
          95,
        ),
      ),
      detectionP95Ms: Math.round(
        percentile(
          runs.map((r, i) => r.detectedAt - waits[i].to),
          95,
        ),
      ),
      server: serverFigures,
      serverProcess: {
        kind: server.kind,
        rssPeakMb: mb(serverProcess.rssPeakBytes),
        cpuS: round(serverProcess.cpuMs / 1000),
      },
      ...(database ? { database } : {}),
      makespanS: first.makespanS,
      idealMakespanS: round((o.startWindowMs + o.durationMs) / 1000),
      checks,
      passed: checks.every((c) => c.ok),
    };
  };
  return withBenchStack('waiting-at-scale', fixtures, run, { cluster: o.cluster });
}

export function formatWaitingSummary(r: WaitingBenchResult): string {
  return [
    `${r.options.tasks} tasks of ${r.options.durationMs / 1000} s started over ${r.options.startWindowMs / 1000} s; ` +
      `makespan ${r.makespanS} s (ideal ${r.idealMakespanS} s)`,
    formatWorkerTable(
      r.workers.length === 1 ? r.workers : r.workers.map((w, i) => ({ ...w, workflowType: `worker ${i + 1}` })),
    ),
    ...(r.workers.length === 1
      ? []
      : [`worker RSS peak summed: ${r.workerRssPeakSumMb} MB (completed and peak open: the whole run's)`]),
    `polls per task ${r.pollsPerTask} (max ${r.pollsPerTaskMax}); submit lag p95 ${r.submitLagP95Ms} ms; ` +
      `detection p95 ${r.detectionP95Ms} ms`,
    formatServerFigures('mediaGeneration', r.server),
    `${serverProcessName(r.serverProcess.kind)}: RSS peak ${r.serverProcess.rssPeakMb} MB, CPU ${r.serverProcess.cpuS} s`,
    ...(r.database
      ? [
          `PostgreSQL (all its processes): CPU ${r.database.cpuS} s; data directory ` +
            `${r.database.sizeStartMb} MB before the run, ${r.database.sizeEndMb} MB after`,
        ]
      : []),
    '',
    formatChecks(r.checks),
  ].join('\n');
}

function serverProcessName(kind: 'dev-server' | 'cluster'): string {
  return kind === 'cluster' ? 'Temporal server process (PostgreSQL not counted)' : 'dev server process';
}

/** A result file of an earlier run, as written by bench/run.ts; `figures` may be of an older shape. */
export interface StoredWaitingResult {
  at: string;
  passed: boolean;
  figures: Partial<WaitingBenchResult> & { devServer?: { rssPeakMb: number; cpuS: number } };
}

/**
 * The cluster's figures beside a dev-server run's (bench-results/waiting-at-scale.json), row by row.
 * Files from before `workers` was written count as one worker.
 */
export function formatSideBySide(cluster: WaitingBenchResult, dev: StoredWaitingResult): string {
  const d = dev.figures;
  const devWorkers = d.workers ?? (d.worker ? [d.worker] : []);
  const devServer = d.serverProcess ?? d.devServer;
  const devSum = d.workerRssPeakSumMb ?? d.worker?.rssPeakMb;
  const opts = (r: Partial<WaitingBenchResult>) =>
    r.options ? `${r.options.tasks} × ${r.options.durationMs / 1000} s over ${r.options.startWindowMs / 1000} s` : '?';
  const n = (v: number | null | undefined) => (v === undefined ? '?' : v === null ? 'not measured' : String(v));
  const peaks = (ws: WorkerFigures[]) => ws.map((w) => w.rssPeakMb).join(' + ') || '?';
  const cpu = (ws: WorkerFigures[]) => (ws.length ? String(round(ws.reduce((a, w) => a + w.cpuS, 0))) : '?');
  const rows: Array<[string, string, string]> = [
    ['tasks × duration over start window', opts(cluster), opts(d)],
    ['worker processes', String(cluster.workers.length), String(devWorkers.length || '?')],
    ['worker RSS peak MB, each', peaks(cluster.workers), peaks(devWorkers)],
    ['worker RSS peak MB, summed', n(cluster.workerRssPeakSumMb), n(devSum)],
    ['worker CPU s, summed', cpu(cluster.workers), cpu(devWorkers)],
    [
      'polls per task (max)',
      `${cluster.pollsPerTask} (${cluster.pollsPerTaskMax})`,
      `${n(d.pollsPerTask)} (${n(d.pollsPerTaskMax)})`,
    ],
    ['submit lag p95 ms', n(cluster.submitLagP95Ms), n(d.submitLagP95Ms)],
    ['detection p95 ms', n(cluster.detectionP95Ms), n(d.detectionP95Ms)],
    [
      'server requests / waiting task / min',
      n(cluster.server.perWaitingTaskPerMinute),
      n(d.server ? d.server.perWaitingTaskPerMinute : undefined),
    ],
    ['server requests per task, whole run', n(cluster.server.perTaskWholeRun), n(d.server?.perTaskWholeRun)],
    ['server process RSS peak MB', n(cluster.serverProcess.rssPeakMb), n(devServer?.rssPeakMb)],
    ['server process CPU s', n(cluster.serverProcess.cpuS), n(devServer?.cpuS)],
    ['PostgreSQL CPU s (all its processes)', n(cluster.database?.cpuS), 'none (SQLite in the server)'],
    [
      'PostgreSQL data MB, before → after',
      cluster.database ? `${cluster.database.sizeStartMb} → ${cluster.database.sizeEndMb}` : '?',
      'none',
    ],
    [
      'makespan s (ideal)',
      `${cluster.makespanS} (${cluster.idealMakespanS})`,
      `${n(d.makespanS)} (${n(d.idealMakespanS)})`,
    ],
    ['checks', cluster.passed ? 'PASS' : 'FAIL', dev.passed ? 'PASS' : 'FAIL'],
  ];
  const differ = opts(cluster) !== opts(d) ? '\n(the two runs had different options: compare with care)' : '';
  return (
    formatTable(['', 'cluster (this run)', `dev server (${dev.at})`], rows) +
    '\ncluster: server process = the Temporal server alone; PostgreSQL not counted.' +
    differ
  );
}
