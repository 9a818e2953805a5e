// Bulk actions at scale: what an operator does across many runs at once, each driven exactly as
// docs/operations.md says (`npm run starter -- incident …` against the stack's server), each on fresh runs:
// - reset: N generations whose submits queue behind each other on a 60 RPM quota, reset by query to their
//   first workflow task once half have submitted; all must complete, each task paid once;
// - pause: N waiting generations, their polls paused by query: no platform read in the next 60 s, then
//   resumed, and all must complete;
// - cancel: N budget-gated generations cancelled by query: every run and its job ends cancelled, and no
//   member's ledger holds a reservation after;
// - rerun: N generations failed by the platform, run again by query twice: the first starts N, the second none.
// The emulator's clock runs `speed` times faster (its quota minute and the tasks' durations with it).
//
//   npm run bench -- --only=bulk-actions [--tasks=1000] [--actions=reset,pause,cancel,rerun] [--cluster]
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { budgetLedgerStateQuery, budgetLedgerWorkflowId, WorkflowType } from '@platform-ops/client';
import { mapBounded } from '../src/shared/lanes';
import { atMost, formatChecks, isTrue, type Check } from './support/checks';
import { withBenchStack, type BenchStack } from './support/stack';
import { round } from './support/stats';
import { textToVideoQuotaFixtures } from './rate-limit';

const execFileAsync = promisify(execFile);
export const BULK_ACTIONS = ['reset', 'pause', 'cancel', 'rerun'] as const;
type Action = (typeof BULK_ACTIONS)[number];

export interface BulkBenchOptions {
  tasks: number;
  actions: Action[];
  cluster: boolean;
  /** The emulator's clock speed: a 60 RPM quota lets `speed` submits through a real second. */
  speed: number;
}

export interface ActionFigures {
  action: Action;
  runs: number;
  /** The starter command's own time, start of the batch to its end as it reports it. */
  commandS: number;
  /** From the command's start until every run of the action is closed. */
  allClosedS: number;
  closed: Record<string, number>;
  /** Tasks paid for more than once (reset), platform reads after the pause settled (pause), … */
  extra: Record<string, number>;
  output: string;
}

export interface BulkBenchResult {
  options: BulkBenchOptions;
  server: 'dev-server' | 'cluster';
  actions: ActionFigures[];
  checks: Check[];
  passed: boolean;
}

/** A generation's emulated length: at ×10, five real minutes, so every run is still waiting when the reset comes. */
const WAITING_MS = 3_000_000;
/**
 * Ten real minutes at ×10, for the pause and the cancel: at 1,000 runs their submits take 100 s on the quota and
 * a sweep up to 300 s on two cores, and no run may end before its action reaches it.
 */
const LONG_WAITING_MS = 6_000_000;
const MEMBERS = Array.from({ length: 10 }, (_, i) => `member-bulk-${i}`);
const STARTS_AT_ONCE = 16;
const STARTER = path.resolve(__dirname, '..', 'src', 'starter.js');

/** Runs `npm run starter -- ARGS` as an operator would, against the stack's server; returns its output and time. */
async function starter(stack: BenchStack, args: string[]): Promise<{ output: string; seconds: number }> {
  const began = Date.now();
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: stack.server.namespace,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
  };
  const { stdout, stderr } = await execFileAsync(process.execPath, [STARTER, ...args], {
    env,
    maxBuffer: 16 << 20,
    timeout: 20 * 60_000,
  });
  return { output: `${stdout}${stderr}`.trim(), seconds: round((Date.now() - began) / 1000) };
}

/** How many runs `query` matches, by status (the server's visibility, one count request a status). */
async function statuses(client: Client, query: string): Promise<Record<string, number>> {
  const names = ['Running', 'Completed', 'Failed', 'Canceled', 'Terminated', 'TimedOut'];
  const counts: Array<[string, number]> = await Promise.all(
    names.map(async (s): Promise<[string, number]> => [
      s,
      (await client.workflow.count(`${query} AND ExecutionStatus = "${s}"`)).count,
    ]),
  );
  return Object.fromEntries(counts.filter(([, n]) => n !== 0));
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2_000);
  }
}

interface Counters {
  submissions: { total: number };
  requests: Record<string, number>;
  paid: { byRoute: Record<string, Record<string, number>> };
}

/** Starts `count` workflows of a phase, `STARTS_AT_ONCE` at a time; ids `<phase>-<i>`. */
async function startAll(stack: BenchStack, phase: string, count: number, start: (id: string, i: number) => unknown) {
  const indexes = Array.from({ length: count }, (_, i) => i);
  await mapBounded(indexes, STARTS_AT_ONCE, (i) => Promise.resolve(start(`bulk-${phase}-${stack.taskQueue}-${i}`, i)));
}

const generation = (phase: string, i: number, durationMs: number, marker = '') => ({
  operation: 'text-to-video' as const,
  request: { prompt: `bulk ${phase} ${i} [emulator:duration=${durationMs}]${marker}` },
  regeneration: { maxRegenerations: 0 },
  keepOutputs: false,
  polling: { maxIntervalMs: 60_000 },
});

async function runAction(stack: BenchStack, o: BulkBenchOptions, action: Action): Promise<ActionFigures> {
  const { client, taskQueue, admin } = stack;
  const log = (msg: string) => process.stderr.write(`[bulk-actions ${action}] ${msg}\n`);
  const query = `TaskQueue = "${taskQueue}" AND WorkflowId STARTS_WITH "bulk-${action}-"`;
  const counters = () => admin<Counters>('GET', '/counters');
  const startGenerations = (durationMs: number, marker = '') =>
    startAll(stack, action, o.tasks, (workflowId, i) =>
      client.workflow.start(WorkflowType.mediaGeneration, {
        taskQueue,
        workflowId,
        args: [generation(action, i, durationMs, marker)],
      }),
    );
  const submitted = async () => (await counters()).submissions.total;
  await admin('POST', '/reset');
  await admin('POST', '/counters/reset');
  const extra: Record<string, number> = {};
  let command: { output: string; seconds: number };
  const began = Date.now();
  log(`${o.tasks} runs…`);
  if (action === 'reset') {
    // 50 emulated minutes each: all still waiting when the reset comes, half of them still in the quota's queue.
    await startGenerations(WAITING_MS);
    await until('half the submits', async () => (await submitted()) >= o.tasks / 2, 30 * 60_000);
    const running = `${query} AND ExecutionStatus = "Running"`;
    command = await starter(stack, ['incident', 'reset', '--query', running, '--to', 'first-task']);
  } else if (action === 'pause') {
    await startGenerations(LONG_WAITING_MS);
    await until('every submit', async () => (await submitted()) >= o.tasks, 30 * 60_000);
    command = await starter(stack, ['incident', 'pause-polling', '--query', query]);
    const reads = async () => (await counters()).requests.taskResult ?? 0;
    const settled = await reads();
    await sleep(60_000);
    extra.readsIn60sAfterPause = (await reads()) - settled;
    const resumed = await starter(stack, ['incident', 'resume-polling', '--query', query]);
    command = { output: `${command.output}\n${resumed.output}`, seconds: command.seconds + resumed.seconds };
  } else if (action === 'cancel') {
    await startAll(stack, action, o.tasks, (workflowId, i) =>
      client.workflow.start(WorkflowType.budgetGatedJob, {
        taskQueue,
        workflowId,
        args: [
          {
            memberId: MEMBERS[i % MEMBERS.length],
            cost: 100,
            job: { workflowType: 'mediaGeneration', input: generation(action, i, LONG_WAITING_MS) },
          },
        ],
      }),
    );
    await until('every submit', async () => (await submitted()) >= o.tasks, 30 * 60_000);
    command = await starter(stack, ['incident', 'cancel', '--query', `${query} AND WorkflowType = "budgetGatedJob"`]);
  } else {
    await startGenerations(1_000, ' [emulator:fail=ILLEGAL_PROMPT]');
    await until('every run to fail', async () => ((await statuses(client, query)).Failed ?? 0) >= o.tasks, 30 * 60_000);
    const failedQuery = `${query} AND ExecutionStatus = "Failed"`;
    command = await starter(stack, ['incident', 'rerun-failed', '--query', failedQuery, '--allow-paid']);
    const again = await starter(stack, ['incident', 'rerun-failed', '--query', failedQuery, '--allow-paid']);
    command = { output: `${command.output}\n${again.output}`, seconds: command.seconds };
    // The reruns' ids extend the failed runs' (`<id>-rerun-…`): every run of the phase, less the N that failed.
    extra.rerunRuns = (await client.workflow.count(query)).count - o.tasks;
  }
  log(`command took ${command.seconds} s; waiting for every run to close…`);
  const running = async () => (await client.workflow.count(`${query} AND ExecutionStatus = "Running"`)).count;
  await until('every run to close', async () => (await running()) === 0, 40 * 60_000);
  const allClosedS = round((Date.now() - began) / 1000);
  const closed = await statuses(client, query);
  const paid = (await counters()).paid.byRoute.submitTextToVideo ?? {};
  extra.paidSubmits = Object.values(paid).reduce((a, b) => a + b, 0);
  extra.paidTwice = Object.values(paid).filter((n) => n > 1).length;
  if (action === 'cancel') {
    const held = await Promise.all(
      MEMBERS.map(
        async (m) =>
          (await client.workflow.getHandle(budgetLedgerWorkflowId(m)).query(budgetLedgerStateQuery)).outstanding,
      ),
    );
    extra.reservedAfter = held.reduce((a, b) => a + b, 0);
  }
  return { action, runs: o.tasks, commandS: command.seconds, allClosedS, closed, extra, output: command.output };
}

function checksOf(o: BulkBenchOptions, f: ActionFigures): Check[] {
  const n = o.tasks;
  switch (f.action) {
    case 'reset':
      return [
        isTrue('reset: all completed', f.closed.Completed === n, f.closed.Completed ?? 0, `${n}`),
        isTrue(
          'reset: each task paid once',
          f.extra.paidSubmits === n && f.extra.paidTwice === 0,
          `${f.extra.paidSubmits} paid, ${f.extra.paidTwice} twice`,
          `${n}, 0`,
        ),
        atMost('reset: the batch, s', f.commandS, 300, ' s'),
      ];
    case 'pause':
      return [
        isTrue('pause: no read within 60 s', f.extra.readsIn60sAfterPause === 0, f.extra.readsIn60sAfterPause, '0'),
        isTrue('pause: all completed after the resume', f.closed.Completed === n, f.closed.Completed ?? 0, `${n}`),
      ];
    case 'cancel':
      return [
        isTrue('cancel: every run and job cancelled', f.closed.Canceled === 2 * n, f.closed.Canceled ?? 0, `${2 * n}`),
        isTrue('cancel: no reservation left', f.extra.reservedAfter === 0, f.extra.reservedAfter, '0'),
      ];
    case 'rerun':
      return [isTrue('rerun: N started, none the second time', f.extra.rerunRuns === n, f.extra.rerunRuns, `${n}`)];
  }
}

export async function runBulkActionsBench(opts: Partial<BulkBenchOptions> = {}): Promise<BulkBenchResult> {
  const o: BulkBenchOptions = {
    tasks: opts.tasks ?? 1_000,
    actions: opts.actions ?? [...BULK_ACTIONS],
    cluster: opts.cluster ?? false,
    speed: opts.speed ?? 10,
  };
  const fixtures = textToVideoQuotaFixtures(60, ['member-demo', ...MEMBERS]);
  return withBenchStack(
    'bulk-actions',
    fixtures,
    async (stack) =>
      stack.worker.runUntilAll(
        o.cluster ? 2 : 1,
        async () => {
          const actions: ActionFigures[] = [];
          for (const action of o.actions) actions.push(await runAction(stack, o, action));
          const checks = actions.flatMap((f) => checksOf(o, f));
          return { options: o, server: stack.server.kind, actions, checks, passed: checks.every((c) => c.ok) };
        },
        { RATE_LIMIT_WINDOW_SECONDS: String(60 / o.speed) },
      ),
    { cluster: o.cluster, emulatorEnv: { EMULATOR_CLOCK_SPEED: String(o.speed) } },
  );
}

export function formatBulkSummary(r: BulkBenchResult): string {
  const rows = r.actions.map(
    (f) =>
      `${f.action}: ${f.runs} runs; command ${f.commandS} s; all closed ${f.allClosedS} s; ` +
      `${Object.entries(f.closed)
        .map(([s, n]) => `${n} ${s}`)
        .join(', ')}; ` +
      Object.entries(f.extra)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
  );
  return [
    `on the ${r.server}, emulator ×${r.options.speed}, quota 60 RPM (emulated)`,
    ...rows,
    '',
    formatChecks(r.checks),
  ].join('\n');
}
