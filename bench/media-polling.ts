// Polling benchmark: N text-to-video tasks of a fixed emulator duration, run three ways -
//   1. our mediaGeneration workflows (eta-aware polling, durable, on a real dev server and worker);
//   2. a plain Node script polling every second, as the platform's own SDK does;
//   3. a plain Node script with our eta-aware schedule and no durability.
// It reports polls per task, the p50/p95 delay between a task ending on the emulator and its runner
// noticing, and the makespan of the whole batch.
//
//   npm run bench -- --only=media-polling [--tasks=200] [--duration=10000]
import { etaAwareRun, fixedIntervalRun, type TaskRun } from './media/plain-runs';
import { workflowRun } from './media/temporal-run';
import { withBenchStack, type BenchStack } from './support/stack';
import { mean, percentile, round } from './support/stats';

export interface MediaBenchOptions {
  tasks: number;
  /** Mean emulated (= real, at clock speed 1) processing time; each task's is within ±20 % of it. */
  durationMs: number;
}

export interface ModeFigures {
  mode: string;
  tasks: number;
  pollsPerTask: number;
  totalPolls: number;
  detectionP50Ms: number;
  detectionP95Ms: number;
  /** From the run's start to the platform taking the submit, and from noticing the end to the caller having the result. */
  submitLagP95Ms: number;
  resultLagP95Ms: number;
  makespanS: number;
}

export interface MediaBenchResult {
  options: MediaBenchOptions;
  modes: ModeFigures[];
  passed: boolean;
}

type Emulator = Pick<BenchStack, 'admin'>;

async function figures(emu: Emulator, mode: string, runs: TaskRun[], makespanMs: number): Promise<ModeFigures> {
  const counters = await emu.admin<{ polls: { byTask: Record<string, number> } }>('GET', '/counters');
  const delays: number[] = [];
  const polls: number[] = [];
  for (const run of runs) {
    const task = await emu.admin<{ finishedAtReal: number }>('GET', `/tasks/${run.taskId}`);
    delays.push(run.detectedAt - task.finishedAtReal);
    // The emulator's own count, not the runner's claim.
    polls.push(counters.polls.byTask[run.taskId] ?? 0);
  }
  return {
    mode,
    tasks: runs.length,
    pollsPerTask: round(mean(polls)),
    totalPolls: polls.reduce((a, b) => a + b, 0),
    detectionP50Ms: Math.round(percentile(delays, 50)),
    detectionP95Ms: Math.round(percentile(delays, 95)),
    submitLagP95Ms: Math.round(
      percentile(
        runs.map((r) => r.submittedAt - r.startedAt),
        95,
      ),
    ),
    resultLagP95Ms: Math.round(
      percentile(
        runs.map((r) => r.resolvedAt - r.detectedAt),
        95,
      ),
    ),
    makespanS: round(makespanMs / 1000),
  };
}

async function timed(n: number, run: (i: number) => Promise<TaskRun>): Promise<{ runs: TaskRun[]; ms: number }> {
  const started = Date.now();
  const runs = await Promise.all(Array.from({ length: n }, (_, i) => run(i)));
  return { runs, ms: Date.now() - started };
}

export async function runMediaPollingBench(opts: Partial<MediaBenchOptions> = {}): Promise<MediaBenchResult> {
  const o: MediaBenchOptions = { tasks: opts.tasks ?? 200, durationMs: opts.durationMs ?? 10_000 };
  const log = (msg: string) => process.stderr.write(`[media-polling] ${msg}\n`);
  // Durations spread over ±20 % (the same for every mode): a duration that is a whole number of
  // seconds would let the one-second loop land exactly on every end, which real tasks never do.
  const durationOf = (i: number) => Math.round(o.durationMs * (0.8 + 0.4 * ((i * 0.618034) % 1)));
  const prompt = (mode: string, i: number) => `bench ${mode} ${i} [emulator:duration=${durationOf(i)}]`;
  // No quotas and no budget limit: the benchmark measures polling, not the platform's refusals.
  const fixtures = { rateLimits: {}, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };

  return withBenchStack('media-polling', fixtures, async ({ admin, platform, client, taskQueue, worker }) => {
    const emu: Emulator = { admin };
    const modes: ModeFigures[] = [];
    await worker.runUntil(async () => {
      log(`${o.tasks} mediaGeneration workflows, ${o.durationMs} ms each…`);
      await emu.admin('POST', '/counters/reset');
      const ours = await timed(o.tasks, (i) =>
        workflowRun(client, taskQueue, `bench-${taskQueue}-${i}`, prompt('wf', i)),
      );
      modes.push(await figures(emu, 'workflows, eta-aware polling', ours.runs, ours.ms));
    });

    log('plain script, fixed 1 s poll loop…');
    await emu.admin('POST', '/counters/reset');
    const fixed = await timed(o.tasks, (i) => fixedIntervalRun(platform, prompt('fixed', i)));
    modes.push(await figures(emu, 'plain script, fixed 1 s loop', fixed.runs, fixed.ms));

    log('plain script, eta-aware polling…');
    await emu.admin('POST', '/counters/reset');
    const plain = await timed(o.tasks, (i) => etaAwareRun(platform, prompt('plain', i)));
    modes.push(await figures(emu, 'plain script, eta-aware polling', plain.runs, plain.ms));

    const [wf, fixedLoop] = modes;
    return {
      options: o,
      modes,
      // Fewer polls than the one-second loop, and the end noticed at least as fast at the 95th percentile.
      passed: wf.pollsPerTask < fixedLoop.pollsPerTask && wf.detectionP95Ms <= fixedLoop.detectionP95Ms,
    };
  });
}

export function formatMediaTable(r: MediaBenchResult): string {
  const head = [
    'mode',
    'tasks',
    'polls/task',
    'total polls',
    'detect p50 ms',
    'detect p95 ms',
    'submit lag p95 ms',
    'result lag p95 ms',
    'makespan s',
  ];
  const rows = r.modes.map((m) => [
    m.mode,
    String(m.tasks),
    String(m.pollsPerTask),
    String(m.totalPolls),
    String(m.detectionP50Ms),
    String(m.detectionP95Ms),
    String(m.submitLagP95Ms),
    String(m.resultLagP95Ms),
    String(m.makespanS),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
