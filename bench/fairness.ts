// Fairness benchmark (docs/fairness.md): one text-to-video quota of Q RPM on the emulator, its clock
// `speed` times faster. Member A starts a backlog worth 10 minutes of the quota; 10 s later members B
// and C start 20 generations each; at 30 s one interactive generation starts. Twice in one run: first
// in fair shares (each member its own key; the interactive start its class), then first in, first out
// (every start one key and one class: the pace before fairness). The fair run drains everything; the
// FIFO run stops once B's and C's submits are all sent, or once they have waited 10 times the fair
// run's p95 (their waits then count up to that moment: at least that long).
//
//   npm run bench -- --only=fairness [--quota=120] [--speed=2] [--minutes=10]
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type Handle, type MediaGenerationInput, type StartOptions, startWorkflow } from '@platform-ops/client';
import { mapBounded } from '../src/shared/lanes';
import { submitsReceived, textToVideoQuotaFixtures } from './rate-limit';
import { atMost, isTrue, type Check } from './support/checks';
import { withBenchStack, type BenchStack } from './support/stack';
import { busiestWindow, percentile, round } from './support/stats';

export interface FairnessBenchOptions {
  /** Requests per emulated minute the emulator allows text-to-video. */
  quota: number;
  speed: number;
  /** A's backlog, in minutes of the quota. */
  minutes: number;
}

export interface FairnessPhase {
  /** Submit wait (start → accepted submit) p95 of B's and C's generations, real ms. */
  minorityWaitP95Ms: number;
  /** True when the phase stopped before every one of B's and C's submits was sent: the p95 is a floor. */
  minorityCensored: boolean;
  interactiveWaitMs: number;
  /** Accepted submits per quota window while A's backlog lasted, over the quota. */
  quotaUse: number;
  /** The most submits the emulator received in one quota window (its own arrival times). */
  maxPerWindow: number;
  rateLimited: number;
  started: number;
  completed: number;
  seconds: number;
}

const MINORITY = 20;
const MINORITY_AT_MS = 10_000;
const INTERACTIVE_AT_MS = 30_000;
/** The FIFO run may stop once B's and C's waits pass this many times the fair run's p95. */
const FIFO_STOP_FACTOR = 10;

interface Run {
  member: string;
  startedAt: number;
  handle: Handle<'mediaGeneration'>;
  acceptedAt?: number;
  done?: 'completed' | 'failed';
}

export async function runFairnessBench(opts: Partial<FairnessBenchOptions> = {}) {
  const o: FairnessBenchOptions = { quota: opts.quota ?? 120, speed: opts.speed ?? 2, minutes: opts.minutes ?? 10 };
  // The dev key's member too: every start is paid by some member of the fixtures.
  const fixtures = textToVideoQuotaFixtures(o.quota, ['member-demo', 'member-a', 'member-b', 'member-c', 'member-d']);
  const recordDir = mkdtempSync(path.join(tmpdir(), 'bench-fairness-record-'));
  const recording = path.join(recordDir, 'exchanges.jsonl');
  return withBenchStack(
    'fairness',
    fixtures,
    async (stack) => {
      const fair = await phase(stack, o, 'fair', recording, Infinity);
      const fifo = await phase(stack, o, 'fifo', recording, FIFO_STOP_FACTOR * fair.minorityWaitP95Ms);
      const checks: Check[] = [
        atMost('fair: minority submit wait p95', round(fair.minorityWaitP95Ms / 1000, 1), 20, ' s'),
        atMost('fair: interactive submit wait', round(fair.interactiveWaitMs / 1000, 1), 5, ' s'),
        isTrue(
          'fair: quota use while the backlog lasted',
          fair.quotaUse >= 0.9,
          `${round(fair.quotaUse * 100, 1)} %`,
          '>= 90 %',
        ),
        atMost('fair: most submits in one quota window', fair.maxPerWindow, o.quota),
        atMost('fair: 429s', fair.rateLimited, 0),
        isTrue(
          'fair: every generation completed',
          fair.completed === fair.started,
          fair.completed,
          String(fair.started),
        ),
        isTrue(
          'FIFO: minority wait p95 beyond 10 × the fair one',
          fifo.minorityWaitP95Ms >= FIFO_STOP_FACTOR * fair.minorityWaitP95Ms,
          `${round(fifo.minorityWaitP95Ms / 1000, 1)} s`,
          `>= ${round((FIFO_STOP_FACTOR * fair.minorityWaitP95Ms) / 1000, 1)} s`,
        ),
      ];
      return { figures: { quotaRpm: o.quota, speed: o.speed, fair, fifo }, checks, passed: checks.every((c) => c.ok) };
    },
    { emulatorEnv: { EMULATOR_CLOCK_SPEED: String(o.speed), EMULATOR_RECORD: recording } },
  ).finally(() => rmSync(recordDir, { recursive: true, force: true }));
}

async function phase(
  stack: BenchStack,
  o: FairnessBenchOptions,
  mode: 'fair' | 'fifo',
  recording: string,
  stopAfterMs: number,
): Promise<FairnessPhase> {
  const log = (msg: string) => process.stderr.write(`[fairness ${mode}] ${msg}\n`);
  await stack.admin('POST', '/reset');
  await stack.admin('POST', '/counters/reset');
  const windowMs = 60_000 / o.speed;
  const env = { RATE_LIMIT_WINDOW_SECONDS: String(windowMs / 1000) };
  return stack.worker.runUntilAll(
    1,
    async () => {
      const t0 = Date.now();
      const runs: Run[] = [];
      const start = async (member: string, i: number, cls: StartOptions['priority']) => {
        const input = {
          operation: 'text-to-video',
          request: { prompt: `${member} ${i} ${mode} [emulator:duration=500]`, duration: 5 },
          regeneration: { maxRegenerations: 0 },
          polling: { minIntervalMs: 500, maxIntervalMs: 2_000 },
          keepOutputs: false,
          memberId: member,
          deadlineSeconds: 3_600,
        } as MediaGenerationInput;
        // FIFO: one key and one class for everyone, as every start was before fairness.
        const place = mode === 'fair' ? { priority: cls } : { priority: 'scheduled' as const, fairnessKey: 'shared' };
        const startedAt = Date.now();
        const { handle } = await startWorkflow(stack.client, 'mediaGeneration', input, {
          taskQueue: stack.taskQueue,
          workflowId: `bench-fair-${mode}-${member}-${i}-${randomUUID().slice(0, 6)}`,
          ...place,
        });
        const run: Run = { member, startedAt, handle };
        runs.push(run);
        void handle.result().then(
          (r) => {
            run.done = 'completed';
            run.acceptedAt = Date.parse(r.submissions.find((s) => s.outcome === 'accepted')!.at!);
          },
          () => (run.done = 'failed'),
        );
      };
      const backlog = o.quota * o.minutes;
      log(`member-a starts ${backlog} generations (${o.minutes} min of a ${o.quota} RPM quota)…`);
      const aStarted = mapBounded(
        Array.from({ length: backlog }, (_, i) => i),
        32,
        (i) => start('member-a', i, 'scheduled'),
      );
      await sleep(t0 + MINORITY_AT_MS - Date.now());
      log(`members b and c start ${MINORITY} each`);
      const minorities = mapBounded(
        Array.from({ length: 2 * MINORITY }, (_, i) => i),
        8,
        (i) => start(i % 2 ? 'member-c' : 'member-b', i, 'scheduled'),
      );
      await sleep(t0 + INTERACTIVE_AT_MS - Date.now());
      log('one interactive generation');
      await start('member-d', 0, 'interactive');
      await Promise.all([aStarted, minorities]);

      const minority = () => runs.filter((r) => r.member === 'member-b' || r.member === 'member-c');
      const minorityStart = Math.min(...minority().map((r) => r.startedAt));
      for (;;) {
        await sleep(1_000);
        const left = runs.filter((r) => !r.done).length;
        const minorityLeft = minority().filter((r) => r.acceptedAt === undefined).length;
        if (left === 0) break;
        if (mode === 'fifo' && minorityLeft === 0 && runs.find((r) => r.member === 'member-d')?.acceptedAt) break;
        if (Date.now() - minorityStart > stopAfterMs) break;
        if ((Date.now() - t0) % 15_000 < 1_000)
          log(`${left} generations still running, ${minorityLeft} of b and c unsent`);
      }
      const stoppedAt = Date.now();
      const open = runs.filter((r) => !r.done);
      log(`stopping ${open.length} generations still running`);
      await mapBounded(open, 16, (r) => r.handle.terminate('fairness bench: phase over').catch(() => undefined));

      const waits = minority().map((r) => (r.acceptedAt ?? stoppedAt) - r.startedAt);
      const interactive = runs.find((r) => r.member === 'member-d')!;
      const received = submitsReceived(recording, t0).filter((x) => x.status !== null && x.status < 300);
      const emulated = received.map((x) => x.emulatedMs);
      // While A's backlog lasted: from the first accepted submit to A's last (or the phase's end).
      const aAccepted = runs.filter((r) => r.member === 'member-a' && r.acceptedAt).map((r) => r.acceptedAt!);
      const backlogEnd = aAccepted.length === backlog ? Math.max(...aAccepted) : stoppedAt;
      const inBacklog = received.filter((x) => x.realMs <= backlogEnd);
      const spanMs = Math.max(1, Math.max(...inBacklog.map((x) => x.emulatedMs)) - Math.min(...emulated));
      const counters = await stack.admin<{ rateLimited: number }>('GET', '/counters');
      return {
        minorityWaitP95Ms: percentile(waits, 95),
        minorityCensored: minority().some((r) => r.acceptedAt === undefined),
        interactiveWaitMs: (interactive.acceptedAt ?? stoppedAt) - interactive.startedAt,
        quotaUse: round(((inBacklog.length - 1) * 60_000) / spanMs / o.quota, 3),
        maxPerWindow: busiestWindow(emulated, 60_000),
        rateLimited: counters.rateLimited,
        started: runs.length,
        completed: runs.filter((r) => r.done === 'completed').length,
        seconds: round((stoppedAt - t0) / 1000, 1),
      };
    },
    env,
  );
}

export function formatFairnessSummary(f: { quotaRpm: number; fair: FairnessPhase; fifo: FairnessPhase }): string {
  const line = (name: string, p: FairnessPhase) =>
    `${name}: b and c wait p95 ${round(p.minorityWaitP95Ms / 1000, 1)} s${p.minorityCensored ? ' (at least)' : ''}, ` +
    `interactive ${round(p.interactiveWaitMs / 1000, 1)} s, quota use ${round(p.quotaUse * 100, 1)} %, ` +
    `most in a window ${p.maxPerWindow} / ${f.quotaRpm}, 429s ${p.rateLimited}, ` +
    `${p.completed}/${p.started} completed in ${p.seconds} s`;
  return [line('fair', f.fair), line('FIFO', f.fifo)].join('\n');
}
