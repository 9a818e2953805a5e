// Waiting at scale: N mediaGeneration workflows of one emulated duration, started at an even pace over
// a start window, on one worker in a process of its own. All must complete. It reports what holding
// them costs while they wait: the worker's peak RSS, polls per task (the emulator's count), history
// events per task, and the server requests per waiting task per minute over the span when every task
// is waiting (the server's own metrics) - against issue 10's targets.
//
//   npm run bench -- --only=waiting-at-scale [--tasks=500] [--duration=60000] [--start-window=30000]
//   npm run bench -- --only=waiting-at-scale --tasks=10000 --duration=600000 --start-window=120000
import { WorkflowType } from '../src/api/names';
import type { MediaGenerationInput } from '../src/api/schemas/media';
import { mediaLoad, mediaTaskRuns } from './media/temporal-run';
import { formatServerFigures, formatWorkerTable } from './media-polling';
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
import { withBenchStack } from './support/stack';
import { percentile, round } from './support/stats';
import { mapPool } from './support/workflow-load';

export interface WaitingBenchOptions {
  tasks: number;
  /** Every task's emulated (= real) processing time. */
  durationMs: number;
  /** The starts are spread evenly over this window. */
  startWindowMs: number;
}

export interface WaitingBenchResult {
  options: WaitingBenchOptions;
  worker: WorkerFigures;
  pollsPerTask: number;
  pollsPerTaskMax: number;
  submitLagP95Ms: number;
  detectionP95Ms: number;
  server: ServerRequestFigures;
  /** The dev server's own process over the run. */
  devServer: { rssPeakMb: number; cpuS: number };
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
  // Half the duration at most by default, so there is a span when every task waits.
  return { tasks, durationMs, startWindowMs: opts.startWindowMs ?? Math.min(120_000, durationMs / 2) };
}

export async function runWaitingAtScaleBench(opts: Partial<WaitingBenchOptions> = {}): Promise<WaitingBenchResult> {
  const o = waitingOptions(opts);
  const log = (msg: string) => process.stderr.write(`[waiting-at-scale] ${msg}\n`);
  const fixtures = { rateLimits: {}, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };
  const input = (i: number): MediaGenerationInput => ({
    operation: 'text-to-video',
    request: { prompt: `bench wait ${i} [emulator:duration=${o.durationMs}]` },
    keepOutputs: false,
    // The emulator's eta is exact: nothing should cut a wait short of it.
    polling: { maxIntervalMs: Math.min(3_600_000, Math.max(30_000, o.durationMs)) },
    deadlineSeconds: Math.max(2 * 3600, Math.ceil((2 * o.durationMs + o.startWindowMs) / 1000)),
  });

  return withBenchStack('waiting-at-scale', fixtures, async ({ admin, client, taskQueue, worker, server }) => {
    // Scrapes of a big metrics page cost the server too: fewer on long runs.
    const recorder = await new RequestsRecorder(
      server.metricsUrl,
      server.namespace,
      o.durationMs >= 120_000 ? 5_000 : 2_000,
    ).start();
    const serverFrom = Date.now();
    await admin('POST', '/counters/reset');
    log(
      `${o.tasks} mediaGeneration workflows of ${o.durationMs / 1000} s, started over ${o.startWindowMs / 1000} s, ` +
        'on one worker process…',
    );
    const run = await worker.runUntil(async (proc) => {
      const idle = await readIdle(proc);
      const load = await mediaLoad({
        client,
        taskQueue,
        idPrefix: `bench-${taskQueue}`,
        count: o.tasks,
        startWindowMs: o.startWindowMs,
        closeTimeoutMs: o.durationMs * 1.5 + 10 * 60_000,
        log,
        lost: () => proc.lost(),
        input,
      });
      return { load, worker: workerFigures(WorkflowType.mediaGeneration, proc, idle, load) };
    });
    await recorder.stop();
    const devServer = spanFigures(server.sampler.between(serverFrom));

    const counters = await admin<{
      submissions: { total: number };
      polls: { total: number; byTask: Record<string, number> };
    }>('GET', '/counters');
    const runs = mediaTaskRuns(run.load);
    log(`reading ${runs.length} tasks back from the emulator…`);
    const views = await mapPool(runs, 32, (r) =>
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
      isTrue('all complete', run.worker.completed === o.tasks, run.worker.completed, `${o.tasks}`),
      atMost('worker RSS peak', run.worker.rssPeakMb, WAITING_TARGETS.workerRssPeakMb, ' MB'),
      atMost('polls per task', pollsPerTask, WAITING_TARGETS.pollsPerTask),
      atMost(
        'server requests per waiting task per minute',
        serverFigures.perWaitingTaskPerMinute,
        WAITING_TARGETS.requestsPerWaitingTaskPerMinute,
      ),
    ];
    return {
      options: o,
      worker: run.worker,
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
      devServer: { rssPeakMb: mb(devServer.rssPeakBytes), cpuS: round(devServer.cpuMs / 1000) },
      makespanS: run.worker.makespanS,
      idealMakespanS: round((o.startWindowMs + o.durationMs) / 1000),
      checks,
      passed: checks.every((c) => c.ok),
    };
  });
}

export function formatWaitingSummary(r: WaitingBenchResult): string {
  return [
    `${r.options.tasks} tasks of ${r.options.durationMs / 1000} s started over ${r.options.startWindowMs / 1000} s; ` +
      `makespan ${r.makespanS} s (ideal ${r.idealMakespanS} s)`,
    formatWorkerTable([r.worker]),
    `polls per task ${r.pollsPerTask} (max ${r.pollsPerTaskMax}); submit lag p95 ${r.submitLagP95Ms} ms; ` +
      `detection p95 ${r.detectionP95Ms} ms`,
    formatServerFigures('mediaGeneration', r.server),
    `dev server process: RSS peak ${r.devServer.rssPeakMb} MB, CPU ${r.devServer.cpuS} s`,
    '',
    formatChecks(r.checks),
  ].join('\n');
}
