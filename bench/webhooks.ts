// Webhook benchmark (issue 14): the same N text-to-video tasks run three times, each on a fresh
// worker process - polling only (no WEBHOOK_PUBLIC_URL), with webhooks (the receiver in the worker,
// every callback sent), and with webhooks while 20 % of callbacks are lost (the safety-net poll must
// find those). For each: platform calls per task (the emulator's own count of submits and task-result
// reads), detection delay (task end on the emulator → the workflow noticing), completions, makespan.
//
//   npm run bench -- --only=webhooks [--tasks=100] [--duration=10000] [--log-dir=<dir>]
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getFreePort } from '../src/devserver/processes';
import { mediaTaskRuns, textToVideoLoad } from './media/temporal-run';
import { formatTable } from './media/tables';
import { atMost, formatChecks, isTrue, type Check } from './support/checks';
import { withBenchStack, type BenchStack } from './support/stack';
import type { LoadRun } from './support/workflow-load';
import { percentile, round } from './support/stats';
import { NO_QUOTAS } from './support/fixtures';

export interface WebhookBenchOptions {
  tasks: number;
  /** Mean task duration (emulated = real ms at clock speed 1); each within ±20 % of it. */
  durationMs: number;
  /** Set: the worker (at INFO), emulator and server logs go there. */
  logDir?: string;
}

export interface WebhookModeFigures {
  mode: string;
  tasks: number;
  completed: number;
  /** Submits and task-result reads per task, as the emulator counted them. */
  callsPerTask: number;
  pollsPerTask: number;
  callbacksLost: number;
  detectionP50Ms: number;
  detectionP95Ms: number;
  detectionMaxMs: number;
  makespanS: number;
}

export interface WebhookBenchResult {
  options: WebhookBenchOptions;
  modes: WebhookModeFigures[];
  checks: Check[];
  passed: boolean;
}

export const WEBHOOK_TARGETS = { callsPerTask: 1.2, detectionP95Ms: 300, lostShare: 0.2 };

/** A lost callback is found by the first safety-net poll: this long after the submit. */
const FIRST_POLL_SECONDS = 30;

export async function runWebhookBench(opts: Partial<WebhookBenchOptions> = {}): Promise<WebhookBenchResult> {
  const o: WebhookBenchOptions = {
    tasks: opts.tasks ?? 100,
    durationMs: opts.durationMs ?? 10_000,
    logDir: opts.logDir,
  };
  const log = (msg: string) => process.stderr.write(`[webhooks] ${msg}\n`);
  const durationOf = (i: number) => Math.round(o.durationMs * (0.8 + 0.4 * ((i * 0.618034) % 1)));
  const fixtures = { ...NO_QUOTAS, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };
  const closeTimeoutMs = 5 * 60_000 + o.durationMs * 5;

  return withBenchStack(
    'webhooks',
    fixtures,
    async (stack) => {
      const port = await getFreePort();
      const webhookEnv = {
        WEBHOOK_LISTEN: `127.0.0.1:${port}`,
        WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_SECRET: randomBytes(32).toString('base64url'),
        WEBHOOK_FIRST_POLL_SECONDS: String(FIRST_POLL_SECONDS),
      };
      const modes: WebhookModeFigures[] = [];
      const phase = async (mode: string, env: Record<string, string>, lostRate: number) => {
        log(`${mode}: ${o.tasks} tasks of ~${o.durationMs} ms…`);
        await stack.admin('POST', '/counters/reset');
        await stack.admin('PUT', '/callbacks', { lostRate });
        const started = Date.now();
        const load = await stack.worker.runUntil(
          (proc) =>
            textToVideoLoad({
              client: stack.client,
              taskQueue: stack.taskQueue,
              idPrefix: `bench-${stack.taskQueue}-${modes.length}`,
              count: o.tasks,
              closeTimeoutMs,
              log,
              lost: () => proc.lost(),
              prompt: (i) => `bench webhooks ${i} [emulator:duration=${durationOf(i)}]`,
            }),
          env,
        );
        if (o.logDir) await keepUnfinished(stack, load, path.join(o.logDir, `histories-${modes.length}`), log);
        modes.push(await figures(stack, mode, o.tasks, mediaTaskRuns(load), Date.now() - started));
      };

      await phase('polling only', {}, 0);
      await phase('webhooks', webhookEnv, 0);
      await phase(
        `webhooks, ${WEBHOOK_TARGETS.lostShare * 100} % of callbacks lost`,
        webhookEnv,
        WEBHOOK_TARGETS.lostShare,
      );

      const [polling, hooks, lossy] = modes;
      const checks: Check[] = [
        isTrue('every task completed, polling only', polling.completed === o.tasks, polling.completed, `${o.tasks}`),
        isTrue('every task completed, webhooks', hooks.completed === o.tasks, hooks.completed, `${o.tasks}`),
        isTrue(
          'every task completed, 20 % of callbacks lost',
          lossy.completed === o.tasks,
          lossy.completed,
          `${o.tasks}`,
        ),
        atMost('platform calls per task, webhooks', hooks.callsPerTask, WEBHOOK_TARGETS.callsPerTask),
        atMost('detection p95, webhooks', hooks.detectionP95Ms, WEBHOOK_TARGETS.detectionP95Ms, ' ms'),
        atMost('platform calls per task, webhooks vs polling only', hooks.callsPerTask, polling.callsPerTask),
      ];
      return { options: o, modes, checks, passed: checks.every((c) => c.ok) };
    },
    o.logDir ? { logDir: o.logDir, workerLogLevel: 'INFO' } : {},
  );
}

/** The histories of up to 5 workflows that did not complete, for `temporal workflow show` or the replayer. */
async function keepUnfinished(
  stack: Pick<BenchStack, 'client'>,
  load: LoadRun,
  dir: string,
  log: (msg: string) => void,
): Promise<void> {
  const unfinished = load.workflows.filter((w) => w.status !== 'COMPLETED').slice(0, 5);
  if (unfinished.length === 0) return;
  mkdirSync(dir, { recursive: true });
  for (const w of unfinished) {
    const history = await stack.client.workflow.getHandle(w.workflowId).fetchHistory();
    writeFileSync(path.join(dir, `${w.workflowId}.json`), JSON.stringify(history));
  }
  log(`${unfinished.length} unfinished workflow histories in ${dir}`);
}

async function figures(
  stack: Pick<BenchStack, 'admin'>,
  mode: string,
  tasks: number,
  runs: ReturnType<typeof mediaTaskRuns>,
  makespanMs: number,
): Promise<WebhookModeFigures> {
  const counters = await stack.admin<{ submissions: { total: number }; polls: { total: number } }>('GET', '/counters');
  const { stats } = await stack.admin<{ stats: { lost: number } }>('GET', '/callbacks');
  const delays: number[] = [];
  for (const run of runs) {
    const view = await stack.admin<{ finishedAtReal: number | null }>('GET', `/tasks/${run.taskId}`);
    delays.push(run.detectedAt - (view.finishedAtReal ?? run.detectedAt));
  }
  return {
    mode,
    tasks,
    completed: runs.length,
    callsPerTask: round((counters.submissions.total + counters.polls.total) / tasks),
    pollsPerTask: round(counters.polls.total / tasks),
    callbacksLost: stats.lost,
    detectionP50Ms: Math.round(percentile(delays, 50)),
    detectionP95Ms: Math.round(percentile(delays, 95)),
    detectionMaxMs: Math.round(Math.max(0, ...delays)),
    makespanS: round(makespanMs / 1000),
  };
}

export function formatWebhookTable(r: WebhookBenchResult): string {
  const head = [
    'mode',
    'completed',
    'calls/task',
    'polls/task',
    'lost',
    'detect p50',
    'detect p95',
    'detect max',
    'makespan',
  ];
  const rows = r.modes.map((m) => [
    m.mode,
    `${m.completed}/${m.tasks}`,
    String(m.callsPerTask),
    String(m.pollsPerTask),
    String(m.callbacksLost),
    `${m.detectionP50Ms} ms`,
    `${m.detectionP95Ms} ms`,
    `${m.detectionMaxMs} ms`,
    `${m.makespanS} s`,
  ]);
  return `${formatTable(head, rows)}\n\n${formatChecks(r.checks)}`;
}
