// Rate limit benchmark: N mediaGeneration submits started at once from 2 worker processes against an
// emulator quota of Q RPM, first with pacing off (each 429 backs off alone: the baseline), then with
// the shared limit (docs/rate-limits.md), on a real dev server and emulator. The emulator's clock runs
// `speed` times faster, so its minute is 60 / speed real seconds and the run fits on a small machine;
// the quota per emulated minute and the ratio of submits to quota stay those of the issue. Twice, not
// faster: the pace keeps 1.5 s of send spread out of every window (SEND_SPREAD_MS), and a shorter
// window makes that second a bigger share of it than the live platform's minute ever does.
//
//   npm run bench -- --only=rate-limit [--submits=500] [--quota=60] [--speed=2]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type MediaGenerationResult, WorkflowType } from '@platform-ops/client';
import type { RecordedExchange } from '@platform-ops/emulator';
import type { mediaGeneration } from '../src/operations/mediaGeneration/workflows';
import { atMost, formatChecks, isTrue, type Check } from './support/checks';
import { withBenchStack, type BenchStack } from './support/stack';
import { busiestSpan, busiestWindow, round } from './support/stats';

export interface RateLimitBenchOptions {
  submits: number;
  /** Requests per emulated minute the emulator allows text-to-video. */
  quota: number;
  /** The emulator's clock speed. */
  speed: number;
}

export interface RateLimitPhase {
  pacing: 'on' | 'off';
  completed: number;
  failed: number;
  /** Submit requests that reached the emulator (accepted or answered 429). */
  requests: number;
  rateLimited: number;
  rateLimitedShare: number;
  /** Attempts a worker held back without sending (another worker's 429 was still in its Retry-After). */
  heldBack: number;
  /**
   * The most submit requests that reached the emulator in any one emulated minute (sliding, on the
   * emulator's own arrival times: what the platform counts), and of those, accepted.
   */
  maxSentPerWindow: number;
  maxAcceptedPerWindow: number;
  /** Where that busiest window began: emulated seconds after the phase's first submit arrived. */
  busiestWindowFromS: number;
  /**
   * The same two figures on the workers' clocks (the attempt's `at`, taken when its answer came
   * back). They carry each request's answer time, so they can exceed what the emulator let through;
   * shown to tell the measurement's noise from the pace's.
   */
  workerClock: { maxSentPerWindow: number; maxAcceptedPerWindow: number };
  /** Accepted submits per emulated minute from the first to the last (emulator arrival times), over the quota. */
  utilisation: number;
  /** Real seconds from the start to the last accepted submit. */
  submitSpanS: number;
}

export interface RateLimitBenchResult {
  options: RateLimitBenchOptions;
  workers: number;
  windowRealMs: number;
  baseline: RateLimitPhase;
  paced: RateLimitPhase;
  /** Baseline 429s per paced 429 (paced 0: the baseline's count). */
  rateLimitedRatio: number;
  checks: Check[];
  passed: boolean;
}

const WORKERS = 2;
const T2V_MODEL = 'vendor-v3.0-pro-t2v';

/**
 * Emulator fixtures with one text-to-video quota of `quota` RPM (tier T5) that paces its submits, and
 * `members` with no budget limit: a benchmark of the quota, not of money.
 */
export function textToVideoQuotaFixtures(quota: number, members: readonly string[]) {
  return {
    members: members.map((id) => ({ id, name: id, remaining: null })),
    quotas: [
      {
        modal: 'video',
        quotaObject: T2V_MODEL,
        quotaType: 'RPM',
        currentQuota: quota,
        defaultQuota: 2,
        quotaItems: [{ tier: 'T5', quota }],
      },
    ],
    rateLimits: { submitTextToVideo: [{ quotaObject: T2V_MODEL, quotaType: 'RPM' }] },
  };
}

export async function runRateLimitBench(opts: Partial<RateLimitBenchOptions> = {}): Promise<RateLimitBenchResult> {
  const o: RateLimitBenchOptions = { submits: opts.submits ?? 500, quota: opts.quota ?? 60, speed: opts.speed ?? 2 };
  const windowRealMs = 60_000 / o.speed;
  // Nobody runs out of budget: the benchmark measures the quota, not money.
  const fixtures = textToVideoQuotaFixtures(o.quota, ['member-demo']);
  // The emulator records every exchange: the windows are counted on its arrival times.
  const recordDir = mkdtempSync(path.join(tmpdir(), 'bench-rate-limit-record-'));
  const recording = path.join(recordDir, 'exchanges.jsonl');
  return withBenchStack(
    'rate-limit',
    fixtures,
    async (stack) => {
      const baseline = await phase(stack, o, 'off', windowRealMs, recording);
      const paced = await phase(stack, o, 'on', windowRealMs, recording);
      const checks: Check[] = [
        isTrue('paced: every generation completed', paced.failed === 0, paced.completed, String(o.submits)),
        atMost('paced: 429s per submit request', round(paced.rateLimitedShare * 100, 2), 1, ' %'),
        atMost('paced: most requests received in any quota window', paced.maxSentPerWindow, o.quota),
        isTrue(
          'paced: utilisation of the quota while submits wait',
          paced.utilisation >= 0.9,
          `${round(paced.utilisation * 100, 1)} %`,
          '>= 90 %',
        ),
      ];
      return {
        options: o,
        workers: WORKERS,
        windowRealMs,
        baseline,
        paced,
        rateLimitedRatio: round(baseline.rateLimited / Math.max(1, paced.rateLimited), 1),
        checks,
        passed: checks.every((c) => c.ok),
      };
    },
    { emulatorEnv: { EMULATOR_CLOCK_SPEED: String(o.speed), EMULATOR_RECORD: recording } },
  ).finally(() => rmSync(recordDir, { recursive: true, force: true }));
}

/** One quota minute on the emulator's clock. */
const EMULATED_WINDOW_MS = 60_000;

/** The text-to-video submits the emulator received since `sinceMs` (real): emulated arrival and status. */
export function submitsReceived(
  recording: string,
  sinceMs: number,
): Array<{ emulatedMs: number; realMs: number; status: number | null }> {
  return readFileSync(recording, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"submitTextToVideo"'))
    .map((line) => JSON.parse(line) as RecordedExchange)
    .filter((x) => x.route === 'submitTextToVideo' && Date.parse(x.at) >= sinceMs)
    .map((x) => ({ emulatedMs: Date.parse(x.emulatedAt), realMs: Date.parse(x.at), status: x.response.status }));
}

async function phase(
  stack: BenchStack,
  o: RateLimitBenchOptions,
  pacing: 'on' | 'off',
  windowRealMs: number,
  recording: string,
): Promise<RateLimitPhase> {
  const log = (msg: string) => process.stderr.write(`[rate-limit] ${msg}\n`);
  // A fresh minute and fresh counters for each phase.
  await stack.admin('POST', '/reset');
  await stack.admin('POST', '/counters/reset');
  const env = { RATE_LIMIT_PACING: pacing, RATE_LIMIT_WINDOW_SECONDS: String(windowRealMs / 1000) };
  return stack.worker.runUntilAll(
    WORKERS,
    async () => {
      log(`pacing ${pacing}: ${o.submits} text-to-video submits at once, quota ${o.quota} RPM, ${WORKERS} workers…`);
      const started = Date.now();
      const outcomes = await Promise.all(
        Array.from({ length: o.submits }, async (_, i) => {
          const handle = await stack.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
            taskQueue: stack.taskQueue,
            workflowId: `bench-rate-${pacing}-${i}-${randomUUID().slice(0, 6)}`,
            args: [
              {
                operation: 'text-to-video',
                request: { prompt: `bench ${i} [emulator:duration=2000]`, duration: 5 },
                regeneration: { maxRegenerations: 0 },
                polling: { minIntervalMs: 1_000, maxIntervalMs: 5_000 },
                keepOutputs: false,
              },
            ],
          });
          return handle.result().then(
            (r): MediaGenerationResult | undefined => r,
            () => undefined,
          );
        }),
      );
      const results = outcomes.filter((r): r is MediaGenerationResult => r !== undefined);
      const attempts = results.flatMap((r) => r.submissions);
      const heldBack = attempts.filter((a) => a.error?.message.includes('not sent:')).length;
      const workerAccepted = attempts.filter((a) => a.outcome === 'accepted').map((a) => Date.parse(a.at!));
      const workerSent = attempts
        .filter((a) => a.at !== undefined && !a.error?.message.includes('not sent:'))
        .map((a) => Date.parse(a.at!));
      const received = submitsReceived(recording, started);
      const accepted = received.filter((x) => x.status !== null && x.status < 300);
      const acceptedAt = accepted.map((x) => x.emulatedMs);
      const busiest = busiestSpan(
        received.map((x) => x.emulatedMs),
        EMULATED_WINDOW_MS,
      );
      const counters = await stack.admin<{ rateLimited: number; requests: Record<string, number> }>('GET', '/counters');
      const requests = counters.requests.submitTextToVideo ?? 0;
      const first = Math.min(...acceptedAt);
      const last = Math.max(...acceptedAt);
      return {
        pacing,
        completed: results.length,
        failed: o.submits - results.length,
        requests,
        rateLimited: counters.rateLimited,
        rateLimitedShare: requests > 0 ? counters.rateLimited / requests : 0,
        heldBack,
        maxSentPerWindow: busiest.count,
        busiestWindowFromS: round((busiest.fromMs - Math.min(...received.map((x) => x.emulatedMs))) / 1000, 1),
        maxAcceptedPerWindow: busiestWindow(acceptedAt, EMULATED_WINDOW_MS),
        workerClock: {
          maxSentPerWindow: busiestWindow(workerSent, windowRealMs),
          maxAcceptedPerWindow: busiestWindow(workerAccepted, windowRealMs),
        },
        utilisation:
          last > first ? round(((acceptedAt.length - 1) * EMULATED_WINDOW_MS) / (last - first) / o.quota, 3) : 0,
        submitSpanS: round((Math.max(...accepted.map((x) => x.realMs)) - started) / 1000),
      };
    },
    env,
  );
}

export function formatRateLimitSummary(r: RateLimitBenchResult): string {
  const line = (p: RateLimitPhase) =>
    `pacing ${p.pacing.padEnd(3)}: ${p.completed}/${r.options.submits} completed, ${p.requests} submit requests, ` +
    `${p.rateLimited} answered 429 (${round(p.rateLimitedShare * 100, 2)} %), ${p.heldBack} held back unsent; ` +
    `most received in a quota window ${p.maxSentPerWindow} (accepted ${p.maxAcceptedPerWindow}, ` +
    `from ${p.busiestWindowFromS} s emulated; ` +
    `on the workers' clocks ${p.workerClock.maxSentPerWindow} / ${p.workerClock.maxAcceptedPerWindow}); ` +
    `utilisation ${round(p.utilisation * 100, 1)} %; last submit after ${p.submitSpanS} s`;
  return `${[
    `${r.options.submits} submits, ${r.workers} workers, quota ${r.options.quota} RPM on an emulated clock ` +
      `${r.options.speed}× (its minute = ${r.windowRealMs / 1000} s real)`,
    line(r.baseline),
    line(r.paced),
    `429s: baseline ${r.baseline.rateLimited}, paced ${r.paced.rateLimited} (ratio ${r.rateLimitedRatio}×)`,
  ].join('\n      ')}\n${formatChecks(r.checks)}`;
}
