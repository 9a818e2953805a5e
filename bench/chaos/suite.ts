// The fault suite: waves of every workflow type against the emulator and a real dev server, one wave
// per fault, the faults in turn (worker SIGKILL, dev server restart, outage, 429 storm, slow paid
// calls, a reset of half the wave, cut downloads), a few of each wave's generations started through Nexus by callers
// in another namespace; then it waits for every workflow to end and gathers what the targets need.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowType } from '@platform-ops/client';
import type { CountersView } from '@platform-ops/emulator';
import { withBenchStack, type BenchStack } from '../support/stack';
import { mapBounded } from '../../src/shared/lanes';
import { chaosFaults, type ChaosFault, type FaultContext, type FaultDurations } from './fault-plan';
import { EXAMPLE_SCENARIOS, exampleScenarioPath, scenarioFault } from './scenario-faults';
import { keyInFiles, keyInHistories } from './key-scan';
import { MAX_LOG_LINE_BYTES } from '../../src/logging';
import { driveEndpoints, endpointsLeftBilling } from './endpoints';
import { heldReservations } from './ledgers';
import { nexusFigures, nexusPaid, startNexusCallers, type NexusCallers, type NexusFigures } from './nexus';
import { gatherOutcomes, type Started } from './outcomes';
import { chaosChecks, duplicatePaid, tally, type ChaosFigures, type FaultWindow } from './tally';
import { atMost, isTrue, type Check } from '../support/checks';
import {
  BATCH_PER_REQUEST_MS,
  CHAOS_CLOCK_SPEED,
  autoRenewMember,
  CHAOS_MEMBER,
  CHAOS_TYPES,
  chaosFixtures,
  chaosInput,
} from './workload';

export interface ChaosOptions extends FaultDurations {
  /** Workflows of each type started per fault. */
  perType: number;
  /** Workflows open during each fault, at least (the target). */
  minInFlight: number;
  /** The whole suite, at most (the target); the wait for the last workflows ends in time for it. */
  maxElapsedS: number;
  /** Scenario files played after the suite's own faults, a wave each (default: the shipped examples). */
  scenarios: readonly string[];
  /** Only the suite's own faults of these names (`--faults=reset,worker-sigkill`), for a quick look at one. */
  only?: readonly string[];
}

export const DEFAULT_CHAOS_OPTIONS: ChaosOptions = {
  perType: 20,
  outageS: 300,
  stormS: 60,
  latencyS: 90,
  cutS: 60,
  minInFlight: 200,
  maxElapsedS: 1_200,
  scenarios: EXAMPLE_SCENARIOS.map(exampleScenarioPath),
};

export interface ChaosResult {
  options: ChaosOptions;
  figures: ChaosFigures;
  /** The Nexus-started runs, as their callers saw them (the tally counts the runs with the rest). */
  nexus: NexusFigures;
  checks: Check[];
  passed: boolean;
  /** What the emulator injected, per kind and route. */
  faultsInjected: CountersView['faultsInjected'];
  /** What was searched for the key. */
  scanned: {
    histories: number;
    logBytes: number;
    /** Each log's longest line: none may pass MAX_LOG_LINE_BYTES. */
    longestLineByLog: Record<string, number>;
    artifactBytes: number;
    logDir: string;
  };
}

/**
 * An event strikes this soon after its wave's last start: the wave at work, its quickest workflows (a
 * renewal is three short calls) not yet done.
 */
const EVENT_SETTLE_MS = 500;
/**
 * After a fault heals, its wave gets this long at most to end before the next fault strikes, so each
 * fault's failures are its own (a worker killed mid-call leaves its activities to time out, 30 s).
 */
const WAVE_SETTLE_MAX_MS = 45_000;
/**
 * Kept for reading outcomes, the ledger and every history after the wait for the last workflows: about 15 s for
 * 2,400 workflows on two cores, so 90 s leaves six times that, and the last wave (a batch left to expire, ten
 * emulated minutes) its time to end.
 */
const GATHER_RESERVE_MS = 90_000;
/**
 * The last wave's time to end once its fault heals, at least: its batches' 10-minute window (60 s at the suite's 10×),
 * their results read and their outputs kept, three times over. Other waves have the next fault's time as well.
 */
const LAST_WAVE_MS = 180_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export async function runChaosSuite(opts: Partial<ChaosOptions> = {}): Promise<ChaosResult> {
  const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  const o: ChaosOptions = { ...DEFAULT_CHAOS_OPTIONS, ...given };
  const began = Date.now();
  const log = (msg: string) => process.stderr.write(`[chaos ${Math.round((Date.now() - began) / 1000)} s] ${msg}\n`);
  // A key of this run only: any occurrence found later can only have come from the run.
  const apiKey = `chaos-key-${randomUUID()}`;
  const own = chaosFaults(o, o.perType).filter((f) => !o.only || o.only.includes(f.name));
  const faults = [...own, ...o.scenarios.map((file) => scenarioFault(file, CHAOS_CLOCK_SPEED))];
  const logDir = mkdtempSync(path.join(tmpdir(), 'chaos-logs-'));
  const fixtures = chaosFixtures(
    apiKey,
    faults.map((f) => f.name),
    o.perType,
  );

  /** The faults in turn, each with its wave, then the wait for the last workflows and what the targets need. */
  const faultsAndGather = async (ctx: FaultContext, callers: NexusCallers): Promise<ChaosResult> => {
    const { stack } = ctx;
    const started: Started[] = [];
    const windows: FaultWindow[] = [];
    const startAll = async (wave: string): Promise<Started[]> => [
      ...(await startWave(stack, wave, o.perType)),
      ...driveEndpoints(stack, wave, o.perType),
      ...(await callers.call(wave, o.perType)),
    ];
    for (const fault of faults) windows.push(await runFault(ctx, fault, startAll, started));

    // The last wave gets its own time whatever the clock says; past the limit, the duration check says so.
    const lastHeal = windows.at(-1)?.to ?? Date.now();
    const until = Math.max(began + o.maxElapsedS * 1000 - GATHER_RESERVE_MS, lastHeal + LAST_WAVE_MS);
    const running = await waitForAll(stack, until, log);
    log(running ? `${running} workflows still running at the deadline` : 'every workflow has ended');
    log('reading the ledger, every outcome and every history…');
    // The ledger answers queries through the worker: read it before the worker goes.
    const members = [CHAOS_MEMBER, ...faults.map((f) => autoRenewMember(f.name))];
    const reservations = await heldReservations(stack.client, members, log);
    await ctx.worker.stop();
    const outcomes = await gatherOutcomes(stack.client, started);
    const counters = await stack.admin<CountersView>('GET', '/counters');
    const nexus = {
      ...nexusFigures(await callers.gather()),
      duplicatePaid: duplicatePaid(nexusPaid(counters.paid), windows).total,
    };
    const leftBilling = await endpointsLeftBilling(stack);
    const histories = await keyInHistories(stack.client, apiKey);
    const logs = keyInFiles(logDir, apiKey);
    const artifacts = keyInFiles(stack.artifactDir, apiKey);
    const sumOf = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
    const figures = tally({
      outcomes,
      faults: windows,
      paid: counters.paid,
      reservations,
      keyOccurrences: { histories: histories.occurrences, ...logs.byFile, artifacts: sumOf(artifacts.byFile) },
      elapsedS: Math.round((Date.now() - began) / 1000),
    });
    const checks = [
      ...chaosChecks(figures, o, CHAOS_TYPES),
      atMost('serverless endpoints left with a worker billing', leftBilling.length, 0),
      atMost(
        'longest log line (worker, server, emulator)',
        Math.max(0, ...Object.values(logs.longestLineByFile)),
        MAX_LOG_LINE_BYTES,
        ' bytes',
      ),
      isTrue(
        "Nexus callers that ended as their run did (the run's result theirs)",
        nexus.runs > 0 && nexus.mismatched.total === 0,
        `${nexus.runs - nexus.mismatched.total} of ${nexus.runs}`,
        'all, of at least 1',
      ),
    ];
    if (leftBilling.length > 0) log(`left billing: ${leftBilling.slice(0, 5).join(', ')}`);
    const passed = checks.every((c) => c.ok);
    return {
      options: o,
      figures,
      nexus,
      checks,
      passed,
      faultsInjected: counters.faultsInjected,
      scanned: {
        histories: histories.histories,
        logBytes: logs.bytes,
        longestLineByLog: logs.longestLineByFile,
        artifactBytes: artifacts.bytes,
        logDir,
      },
    };
  };

  const result = await withBenchStack(
    'chaos',
    fixtures,
    async (stack) => {
      await stack.admin('PUT', '/clock', { speed: CHAOS_CLOCK_SPEED });
      await stack.admin('PUT', '/batches/settings', { perRequestMs: BATCH_PER_REQUEST_MS });
      const ctx: FaultContext = { stack, worker: await stack.worker.start(), log };
      const callers = await startNexusCallers(stack, log);
      try {
        return await faultsAndGather(ctx, callers);
      } finally {
        await callers.stop();
      }
    },
    // INFO: every line the worker would log in production is searched for the key.
    { apiKey, logDir, workerLogLevel: 'INFO' },
  );

  // A failed run's logs are kept, to read what happened; a passed run's are only searched. Removed
  // once the stack is down: the dev server writes its log until it stops.
  if (result.passed) rmSync(logDir, { recursive: true, force: true });
  else log(`logs kept in ${logDir}`);
  return result;
}

/** One fault and its wave: an event strikes the wave at work, a state is set before the wave starts. */
async function runFault(
  ctx: FaultContext,
  fault: ChaosFault,
  startAll: (wave: string) => Promise<Started[]>,
  started: Started[],
): Promise<FaultWindow> {
  ctx.log(`== ${fault.name}: ${fault.what}`);
  let from: number;
  let wave: Started[];
  if (fault.kind === 'state') {
    await fault.strike(ctx);
    from = Date.now();
    wave = await startAll(fault.name);
    await fault.afterWaveStarts?.(ctx);
    await sleep(from + fault.holdMs - Date.now());
  } else {
    wave = await startAll(fault.name);
    await sleep(EVENT_SETTLE_MS);
    from = Date.now();
    await fault.strike(ctx);
    await sleep(fault.holdMs);
  }
  await fault.heal(ctx);
  const to = Date.now();
  ctx.log(`${fault.name} over after ${Math.round((to - from) / 1000)} s`);
  started.push(...wave);
  // The wave's runs: those its prefix names, and those named otherwise (an endpoint's, a Nexus call's).
  const prefix = `chaos-${fault.name}-`;
  const named = wave.filter((s) => !s.workflowId.startsWith(prefix)).map((s) => `'${s.workflowId}'`);
  const running = await waitForAll(
    ctx.stack,
    to + WAVE_SETTLE_MAX_MS,
    ctx.log,
    `(WorkflowId STARTS_WITH "${prefix}"${named.length ? ` OR WorkflowId IN (${named.join(', ')})` : ''})`,
  );
  if (running > 0) ctx.log(`${running} workflows of the ${fault.name} wave still running; on to the next fault`);
  return {
    name: fault.name,
    from,
    to,
    justifies: fault.justifies,
    allowances: fault.allowances,
    losesAnswersOf: fault.losesAnswersOf,
  };
}

/**
 * `perType` workflows of every type, started 32 at a time, the types interleaved (so the last starts,
 * still at work when an event strikes, are of every type); a refused start is kept as such.
 */
async function startWave(stack: BenchStack, wave: string, perType: number): Promise<Started[]> {
  const planned = Array.from({ length: perType }, (_, i) =>
    CHAOS_TYPES.map((type) => ({ type, i, workflowId: `chaos-${wave}-${type}-${i}` })),
  ).flat();
  return mapBounded(planned, 32, async ({ type, i, workflowId }): Promise<Started> => {
    const sentAt = Date.now();
    try {
      await stack.client.workflow.start(type, {
        taskQueue: stack.taskQueue,
        workflowId,
        args: [chaosInput(type, wave, i, workflowId)],
      });
      return { workflowId, type, wave, sentAt };
    } catch (err) {
      return { workflowId, type, wave, sentAt, startError: err instanceof Error ? err.message : String(err) };
    }
  });
}

/**
 * Until no workflow (but the ledger; of those `only` selects) runs on the suite's queue, or `deadline`
 * (real epoch ms); answers how many still run.
 */
async function waitForAll(
  stack: BenchStack,
  deadline: number,
  log: (msg: string) => void,
  only?: string,
): Promise<number> {
  const query =
    `TaskQueue="${stack.taskQueue}" AND ExecutionStatus="Running" AND WorkflowType!="${WorkflowType.budgetLedger}"` +
    (only ? ` AND ${only}` : '');
  let lastSaid = Date.now();
  for (;;) {
    const running = (await stack.client.workflow.count(query)).count;
    if (running === 0 || Date.now() >= deadline) return running;
    if (Date.now() - lastSaid > 30_000) {
      log(`${running} workflows still running…`);
      lastSaid = Date.now();
    }
    await sleep(2_000);
  }
}
