// The moonshot: up to 100,000 mediaGeneration workflows waiting at once on the production topology
// (`npm run cluster`'s PostgreSQL and Temporal server, two workers), to see how far this machine gets
// and what stops it. Unlike waiting-at-scale it keeps nothing per workflow: every figure comes from
// counts (the server's visibility, the emulator's counters) and from /proc, once a minute, into a
// timeline. With --budget it stops after that long, however far it got; without, it runs until every
// workflow has closed and checks that all completed.
//
//   npm run bench -- --only=moonshot [--tasks=100000] [--duration=10800000] [--starts-per-second=20] [--budget=3600000]
import { setTimeout as sleep } from 'node:timers/promises';
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { type MediaGenerationInput, SearchAttributes, WorkflowType } from '@platform-ops/client';
import {
  formatSample,
  moonshotLimits,
  type MoonshotOptions,
  type MoonshotResult,
  type MoonshotSample,
} from './moonshot-timeline';
import { atMost, isTrue, type Check } from './support/checks';
import { mb } from './support/proc-stats';
import { RequestsRecorder } from './support/server-metrics';
import { withBenchStack, type BenchStack } from './support/stack';
import { percentile, round } from './support/stats';
import { startOnce } from './support/workflow-load';
import { NO_QUOTAS } from './support/fixtures';
import { duplicatePaid } from './chaos/tally';
import type { CountersView } from '@platform-ops/emulator';

const SAMPLE_MS = 60_000;
const MAX_STARTS_IN_FLIGHT = 64;

export function moonshotOptions(o: Partial<MoonshotOptions>): MoonshotOptions {
  return {
    tasks: o.tasks ?? 100_000,
    durationMs: o.durationMs ?? 3 * 3_600_000,
    startsPerSecond: o.startsPerSecond ?? 20,
    budgetMs: o.budgetMs,
    workers: o.workers ?? 2,
  };
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}

export async function runMoonshotBench(opts: Partial<MoonshotOptions> = {}): Promise<MoonshotResult> {
  const o = moonshotOptions(opts);
  const log = (msg: string) => process.stderr.write(`[moonshot] ${msg}\n`);
  const fixtures = { ...NO_QUOTAS, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };
  const input = (i: number): MediaGenerationInput => ({
    operation: 'text-to-video',
    request: { prompt: `moonshot ${i} [emulator:duration=${o.durationMs}]` },
    keepOutputs: false,
    polling: { maxIntervalMs: 3_600_000 },
    deadlineSeconds: Math.min(604_800, Math.ceil((2 * o.durationMs + o.tasks / o.startsPerSecond) / 1000) + 7_200),
  });

  const run = async ({ admin, client, taskQueue, worker, server }: BenchStack): Promise<MoonshotResult> => {
    const recorder = await new RequestsRecorder(server.metricsUrl, server.namespace, 15_000).start();
    await admin('POST', '/counters/reset');
    const idPrefix = `moonshot-${taskQueue}`;
    const mine = `WorkflowId STARTS_WITH "${idPrefix}-"`;
    const count = async (where: string) => (await client.workflow.count(`${mine} AND ${where}`)).count;
    log(
      `${o.tasks} generations of ${o.durationMs / 60_000} min, ${o.startsPerSecond} starts a second asked, ` +
        `${o.workers} workers, ${o.budgetMs ? `a budget of ${o.budgetMs / 60_000} min` : 'until all close'}…`,
    );
    return worker.runUntilAll(o.workers, async (procs) => {
      const firstStartAt = Date.now();
      const stopAt = o.budgetMs ? firstStartAt + o.budgetMs : Infinity;
      let started = 0;
      let lastStartAt = firstStartAt;
      let startFailures = 0;
      let latencies: number[] = [];
      let inFlight = 0;
      const starting = (async () => {
        for (let i = 0; i < o.tasks && Date.now() < stopAt && !procs.some((p) => p.lost()); i++) {
          const due = firstStartAt + (i * 1000) / o.startsPerSecond;
          while (Date.now() < due || inFlight >= MAX_STARTS_IN_FLIGHT) await sleep(Math.max(5, due - Date.now()));
          inFlight++;
          const at = Date.now();
          void startOnce({ client, taskQueue, workflowType: WorkflowType.mediaGeneration }, `${idPrefix}-${i}`, [
            input(i),
          ])
            .then(
              () => void (started++, (lastStartAt = Date.now()), latencies.push(lastStartAt - at)),
              () => void startFailures++,
            )
            .finally(() => inFlight--);
        }
        while (inFlight > 0) await sleep(100);
      })();

      const timeline: MoonshotSample[] = [];
      let last = {
        at: firstStartAt,
        workerCpuMs: procs.map((p) => p.sampler.sample()?.cpuMs ?? 0),
        serverCpuMs: server.sampler.sample()?.cpuMs ?? 0,
        postgresCpuMs: server.database?.cpuMs() ?? 0,
        machine: machineTicks(),
        benchCpuMs: ownCpuMs(),
      };
      const reading = async (): Promise<MoonshotSample> => {
        const now = Date.now();
        const seconds = (now - last.at) / 1000;
        const ws = procs.map((p) => p.sampler.sample());
        const sv = server.sampler.sample();
        const pgCpuMs = server.database?.cpuMs() ?? 0;
        const machine = machineTicks();
        const benchCpuMs = ownCpuMs();
        await recorder.scrape();
        const requests = recorder.between(last.at, now);
        const [waiting, open, completed, closed] = await Promise.all([
          count(`ExecutionStatus="Running" AND ${SearchAttributes.taskId.name} IS NOT NULL`),
          count('ExecutionStatus="Running"'),
          count('ExecutionStatus="Completed"'),
          count('ExecutionStatus!="Running"'),
        ]);
        const workerCpuMs = ws.map((w, i) => w?.cpuMs ?? last.workerCpuMs[i]);
        const cores = (cpuMs: number) => round(cpuMs / 1000 / seconds);
        const sample: MoonshotSample = {
          atS: Math.round((now - firstStartAt) / 1000),
          started,
          startFailures,
          startP95Ms: Math.round(percentile(latencies, 95)),
          waiting,
          notYetSubmitted: open - waiting,
          completed,
          closedNotCompleted: closed - completed,
          workerRssMb: ws.map((w) => (w ? mb(w.rssBytes) : 0)),
          workerCores: cores(workerCpuMs.reduce((a, c, i) => a + c - last.workerCpuMs[i], 0)),
          serverRssMb: sv ? mb(sv.rssBytes) : 0,
          serverCores: cores((sv?.cpuMs ?? last.serverCpuMs) - last.serverCpuMs),
          postgresCores: cores(pgCpuMs - last.postgresCpuMs),
          postgresMb: server.database ? mb(server.database.sizeBytes()) : 0,
          machineCores: round(
            ((machine.busy - last.machine.busy) / Math.max(1, machine.total - last.machine.total)) * cpus().length,
          ),
          benchCores: cores(benchCpuMs - last.benchCpuMs),
          serverRequestsPerS: requests ? Math.round(requests.total / ((requests.to - requests.from) / 1000)) : 0,
          loadAverage1m: round(loadavg()[0]),
        };
        last = {
          at: now,
          workerCpuMs,
          serverCpuMs: sv?.cpuMs ?? last.serverCpuMs,
          postgresCpuMs: pgCpuMs,
          machine,
          benchCpuMs,
        };
        latencies = [];
        log(formatSample(sample));
        return sample;
      };

      let stoppedBy: MoonshotResult['stoppedBy'] = 'budget';
      for (;;) {
        await sleep(Math.max(0, Math.min(SAMPLE_MS, stopAt - Date.now())));
        const s = await reading();
        timeline.push(s);
        if (procs.some((p) => p.lost())) {
          stoppedBy = 'worker lost';
          break;
        }
        if (Date.now() >= stopAt) break;
        if (s.started + s.startFailures >= o.tasks && s.completed + s.closedNotCompleted >= s.started) {
          stoppedBy = 'all closed';
          break;
        }
      }
      await starting;
      await recorder.stop();
      const counters = await admin<CountersView>('GET', '/counters');
      const paidTwice = duplicatePaid(counters.paid).total;
      const end = timeline[timeline.length - 1];
      const checks: Check[] = [
        isTrue('no workflow closed other than completed', end.closedNotCompleted === 0, end.closedNotCompleted, '0'),
        atMost('generations paid twice', paidTwice, 0),
        ...(stoppedBy === 'budget'
          ? []
          : [isTrue('all complete', end.completed === o.tasks, end.completed, `${o.tasks}`)]),
      ];
      return {
        options: o,
        timeline,
        startsPerSecondReached: round(end.started / Math.max(1, (lastStartAt - firstStartAt) / 1000)),
        peakWaiting: timeline.reduce((a, s) => Math.max(a, s.waiting), 0),
        paid: counters.paid.total,
        paidTwice,
        stoppedBy,
        limits: moonshotLimits(timeline, cpus().length),
        checks,
        passed: checks.every((c) => c.ok),
      };
    });
  };
  return withBenchStack('moonshot', fixtures, run, { cluster: true });
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
