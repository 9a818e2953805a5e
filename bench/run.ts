// `npm run bench`: runs every benchmark in turn, prints its figures and writes them to
// bench-results/<name>.json. `npm run bench -- --only=<name>` runs one.
// `--only=waiting-at-scale --cluster` runs that one on the production topology, into
// bench-results/waiting-at-scale-cluster.json, beside the dev server's result file when there is one;
// `--only=bulk-actions --cluster` likewise, into bench-results/bulk-actions-cluster.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatBudgetSummary, runBudgetAdmissionBench } from './budget-admission';
import { BULK_ACTIONS, formatBulkSummary, runBulkActionsBench } from './bulk-actions';
import { runEmulatorThroughputBench } from './emulator-throughput';
import { formatFairnessSummary, runFairnessBench } from './fairness';
import { listArg, numberArg, stringArg } from './support/args';
import { formatChecks } from './support/checks';
import { formatMediaTable } from './media/tables';
import { runMoonshotBench } from './moonshot';
import { formatMoonshotSummary } from './moonshot-timeline';
import { runMediaPollingBench } from './media/polling';
import { formatRateLimitSummary, runRateLimitBench } from './rate-limit';
import { formatWebhookTable, runWebhookBench } from './webhooks';
import {
  formatSideBySide,
  formatWaitingSummary,
  runWaitingAtScaleBench,
  type StoredWaitingResult,
} from './waiting-at-scale';

interface Bench {
  name: string;
  what: string;
  run: () => Promise<{ passed: boolean; summary: string; figures: unknown; file?: string }>;
  /** Hours long on this machine: left out of a run of every benchmark. */
  onlyWhenAsked?: boolean;
}

const outDir = path.resolve(__dirname, '..', '..', 'bench-results');
const cluster = process.argv.includes('--cluster');

const benches: Bench[] = [
  {
    name: 'bulk-actions',
    what:
      "an operator's bulk actions by query, each as the runbook runs it: reset, pause and resume polling, cancel, " +
      'rerun failed (defaults: --tasks=1000, --actions=reset,pause,cancel,rerun; --cluster: on the production ' +
      'topology, into bulk-actions-cluster.json); only with --only=bulk-actions',
    onlyWhenAsked: true,
    run: async () => {
      const actions = listArg('actions') as Array<(typeof BULK_ACTIONS)[number]> | undefined;
      const bad = actions?.find((a) => !(BULK_ACTIONS as readonly string[]).includes(a));
      if (bad) throw new Error(`--actions: "${bad}" is not one of ${BULK_ACTIONS.join(', ')}`);
      const r = await runBulkActionsBench({ tasks: numberArg('tasks'), actions, cluster });
      const file = cluster ? 'bulk-actions-cluster.json' : undefined;
      return { passed: r.passed, figures: r, summary: `\n${formatBulkSummary(r)}`, file };
    },
  },
  {
    name: 'media-polling',
    what:
      'mediaGeneration polling against a fixed 1 s loop and a plain script, its worker and server costs beside ' +
      "the SDK's floor and the Temporal peer, Cloud Actions included (defaults: --tasks=200, --duration=10000 ms; " +
      "--webhooks: the workflows' worker takes callbacks, into media-polling-webhooks.json)",
    run: async () => {
      const webhooks = process.argv.includes('--webhooks');
      const r = await runMediaPollingBench({ tasks: numberArg('tasks'), durationMs: numberArg('duration'), webhooks });
      const file = webhooks ? 'media-polling-webhooks.json' : undefined;
      return { passed: r.passed, figures: r, summary: `\n${formatMediaTable(r)}`, file };
    },
  },
  {
    name: 'waiting-at-scale',
    what:
      'N mediaGeneration workflows waiting at once on one worker, started over a window ' +
      '(defaults: --tasks=500, --duration=60000 ms, --start-window=min(120000, duration/2) ms; ' +
      '--cluster: on the production topology with two workers)',
    run: async () => {
      const r = await runWaitingAtScaleBench({
        tasks: numberArg('tasks'),
        durationMs: numberArg('duration'),
        startWindowMs: numberArg('start-window'),
        cluster,
      });
      const summary = `\n${formatWaitingSummary(r)}`;
      if (!cluster) return { passed: r.passed, figures: r, summary };
      const devFile = path.join(outDir, 'waiting-at-scale.json');
      const beside = existsSync(devFile)
        ? `\n\nside by side with ${path.relative(process.cwd(), devFile)}:\n` +
          formatSideBySide(r, JSON.parse(readFileSync(devFile, 'utf8')) as StoredWaitingResult)
        : `\n\n(no ${path.relative(process.cwd(), devFile)} to compare with: run without --cluster first)`;
      return { passed: r.passed, figures: r, summary: summary + beside, file: 'waiting-at-scale-cluster.json' };
    },
  },
  {
    name: 'moonshot',
    what:
      'up to 100,000 mediaGeneration workflows waiting at once on the production topology, read once a minute ' +
      '(defaults: --tasks=100000, --duration=10800000 ms, --starts-per-second=20; --budget=<ms>: stop after that ' +
      'long, however far it got); only with --only=moonshot',
    onlyWhenAsked: true,
    run: async () => {
      const r = await runMoonshotBench({
        tasks: numberArg('tasks'),
        durationMs: numberArg('duration'),
        startsPerSecond: numberArg('starts-per-second'),
        budgetMs: numberArg('budget'),
      });
      return { passed: r.passed, figures: r, summary: `\n${formatMoonshotSummary(r)}\n${formatChecks(r.checks)}` };
    },
  },
  {
    name: 'webhooks',
    what:
      'the same mediaGeneration tasks polled only, with webhooks, and with 20 % of callbacks lost ' +
      '(defaults: --tasks=100, --duration=10000 ms)',
    run: async () => {
      const r = await runWebhookBench({
        tasks: numberArg('tasks'),
        durationMs: numberArg('duration'),
        logDir: stringArg('log-dir'),
      });
      return { passed: r.passed, figures: r, summary: `\n${formatWebhookTable(r)}` };
    },
  },
  {
    name: 'budget-admission',
    what: 'N budget-gated jobs at once for one member whose budget covers K (defaults: --jobs=100, --covered=40)',
    run: async () => {
      const r = await runBudgetAdmissionBench({ jobs: numberArg('jobs'), covered: numberArg('covered') });
      return { passed: r.passed, figures: r, summary: formatBudgetSummary(r) };
    },
  },
  {
    name: 'rate-limit',
    what:
      'N text-to-video submits at once from 2 workers against a quota of Q RPM, pacing off then on ' +
      '(defaults: --submits=500, --quota=60, --speed=2: the emulated clock, its minute 30 s real)',
    run: async () => {
      const r = await runRateLimitBench({
        submits: numberArg('submits'),
        quota: numberArg('quota'),
        speed: numberArg('speed'),
      });
      return { passed: r.passed, figures: r, summary: formatRateLimitSummary(r) };
    },
  },
  {
    name: 'fairness',
    what:
      "one member's backlog of 10 minutes of a Q RPM quota, 20 generations each of two more members 10 s later, " +
      'one interactive at 30 s: fair shares, then first in, first out (defaults: --quota=120, --speed=2, --minutes=10)',
    run: async () => {
      const r = await runFairnessBench({
        quota: numberArg('quota'),
        speed: numberArg('speed'),
        minutes: numberArg('minutes'),
      });
      return {
        passed: r.passed,
        figures: { ...r.figures, checks: r.checks },
        summary: `\n${formatFairnessSummary(r.figures)}\n${formatChecks(r.checks)}`,
      };
    },
  },
  {
    name: 'emulator-throughput',
    what: 'task-result requests per second the emulator serves (target 2,000 on 2 cores)',
    run: async () => {
      const r = await runEmulatorThroughputBench();
      return {
        passed: r.passed,
        figures: r,
        summary:
          `${r.rps} req/s (${r.requests} requests in ${r.seconds} s, ${r.errors} errors, ${r.concurrency} in flight); ` +
          `latency p50 ${r.p50Ms} ms, p90 ${r.p90Ms} ms, p99 ${r.p99Ms} ms; target ${r.target} req/s`,
      };
    },
  },
];

async function main(): Promise<void> {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const selected = only ? benches.filter((b) => b.name === only) : benches.filter((b) => !b.onlyWhenAsked);
  if (selected.length === 0) {
    throw new Error(`--only=${only}: no such benchmark (there are: ${benches.map((b) => b.name).join(', ')})`);
  }
  if (cluster && only !== 'waiting-at-scale' && only !== 'bulk-actions') {
    throw new Error(
      '--cluster: only with --only=waiting-at-scale or --only=bulk-actions (the other benchmarks run on the dev server)',
    );
  }
  mkdirSync(outDir, { recursive: true });
  const given = process.argv.slice(2).filter((a) => a.startsWith('--') && !a.startsWith('--only='));
  let failed = 0;
  for (const bench of selected) {
    console.log(`\n== ${bench.name}: ${bench.what}`);
    // The header names the defaults; say what this run was given instead, so a pasted log is unambiguous.
    if (given.length > 0) console.log(`   given: ${given.join(' ')}`);
    const result = await bench.run();
    console.log(`${result.passed ? 'PASS' : 'FAIL'}  ${result.summary}`);
    const { file: name = `${bench.name}.json`, ...written } = result;
    const file = path.join(outDir, name);
    writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), ...written }, null, 2));
    console.log(`figures written to ${path.relative(process.cwd(), file)}`);
    if (!result.passed) failed++;
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
