// Polling benchmark: N text-to-video tasks of a fixed emulator duration, run three ways -
//   1. our mediaGeneration workflows (eta-aware polling, durable, on a real dev server, the worker in
//      a process of its own);
//   2. a plain Node script polling every second, as the platform's own SDK does;
//   3. a plain Node script with our eta-aware schedule and no durability.
// It reports polls per task, the p50/p95 delay between a task ending on the emulator and its runner
// noticing, submit lag and the makespan of the whole batch; for the workflows also the worker's memory
// and CPU per workflow, history events per task and server requests per waiting task per minute, set
// beside the same figures of the SDK's floor (N workflows that only sleep as long, on the same worker)
// and of the same generations with payload encryption off (the codec's price). The same N run as the
// Temporal peer too (./peers.ts), and all are set beside ours per generation, Cloud Actions included.
// Pass/fail is the targets table of issue 10.
//
//   npm run bench -- --only=media-polling [--tasks=200] [--duration=10000]
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { allowPlaintext } from '@platform-ops/client';
import { getFreePort } from '../../src/devserver/processes';
import { etaAwareRun, fixedIntervalRun, modeFigures, timed, type Emulator, type ModeFigures } from './plain-runs';
import { mediaTaskRuns, submitPhases, textToVideoLoad, type StartedBy } from './temporal-run';
import type { PhaseFigures } from '../support/history-phases';
import { atMost, isTrue, type Check } from '../support/checks';
import {
  ratioToFloor,
  readIdle,
  serverRequestFigures,
  workerFigures,
  type ServerRequestFigures,
  type WorkerFigures,
} from '../support/load-figures';
import { RequestsRecorder } from '../support/server-metrics';
import { withBenchStack } from '../support/stack';
import { round } from '../support/stats';
import { floorHistories, runWorkflowLoad } from '../support/workflow-load';
import { NO_QUOTAS } from '../support/fixtures';
import { loadActions, type ActionFigures } from './actions';
import {
  floorDetection,
  generationFigures,
  peerChecks,
  runPeer,
  type GenerationFigures,
  type PeerFigures,
  type PeerVariant,
} from './peers';

export interface MediaBenchOptions {
  tasks: number;
  /** Mean emulated (= real, at clock speed 1) processing time; each task's is within ±20 % of it. */
  durationMs: number;
  /** The workflows' worker takes the platform's callbacks (its receiver, the default safety-net polls). */
  webhooks?: boolean;
}

export interface MediaBenchResult {
  options: MediaBenchOptions;
  modes: ModeFigures[];
  /** Workflows over the plain eta-aware script. */
  makespanRatio: number;
  /** Where mediaGeneration's submit lag goes (./media/temporal-run.ts). */
  submitPhases: PhaseFigures;
  /** The same for the SDK's floor, up to its first command (its timer): the least any workflow waits to act. */
  floorStartPhases: PhaseFigures;
  worker: {
    mediaGeneration: WorkerFigures;
    /** The same generations with payload encryption off (worker and client). */
    mediaGenerationEncryptionOff: WorkerFigures;
    sdkFloor: WorkerFigures;
    ratio: ReturnType<typeof ratioToFloor>;
  };
  /** Worker CPU per generation with the payload codec on over off. */
  codecCpuRatio: number;
  server: { mediaGeneration: ServerRequestFigures; sdkFloor: ServerRequestFigures };
  /**
   * Per generation, beside the Temporal peer and the floor (docs/benchmarks.md's table); started by the service's
   * client, and `plainStart` by a plain Temporal client (no first search attributes at the start).
   */
  ours: GenerationFigures & {
    actionsPerGenerationFairnessOn: number;
    plainStart: { cpuMsPerGeneration: number; actions: ActionFigures };
  };
  peers: Record<PeerVariant, PeerFigures>;
  floor: GenerationFigures;
  checks: Check[];
  passed: boolean;
}

/** The targets. The makespan ratio's depends on the size: 1.15 for 200 × 10 s, 1.25 for 1,000 × 60 s. */
const MEDIA_TARGETS = {
  makespanRatio: (o: MediaBenchOptions) => (o.tasks > 200 || o.durationMs > 10_000 ? 1.25 : 1.15),
  detectionP95Ms: 1_500,
  submitLagP95Ms: 5_000,
  /** What the payload codec may cost: worker CPU per generation, on over off. */
  codecCpuRatio: 1.1,
  /** Set for 1,000 open workflows. */
  workerRssPeakMb: 600,
};

export async function runMediaPollingBench(opts: Partial<MediaBenchOptions> = {}): Promise<MediaBenchResult> {
  const o: MediaBenchOptions = {
    tasks: opts.tasks ?? 200,
    durationMs: opts.durationMs ?? 10_000,
    webhooks: opts.webhooks ?? false,
  };
  const log = (msg: string) => process.stderr.write(`[media-polling] ${msg}\n`);
  // Durations spread over ±20 % (the same for every mode): a duration that is a whole number of
  // seconds would let the one-second loop land exactly on every end, which real tasks never do.
  const durationOf = (i: number) => Math.round(o.durationMs * (0.8 + 0.4 * ((i * 0.618034) % 1)));
  const prompt = (mode: string, i: number) => `bench ${mode} ${i} [emulator:duration=${durationOf(i)}]`;
  // No quotas and no budget limit: the benchmark measures polling, not the platform's refusals.
  const fixtures = { ...NO_QUOTAS, members: [{ id: 'member-demo', name: 'Demo', remaining: null }] };
  const closeTimeoutMs = 10 * 60_000 + o.durationMs * 5;

  return withBenchStack('media-polling', fixtures, async ({ admin, platform, client, taskQueue, worker, server }) => {
    const emu: Emulator = { admin };
    const recorder = await new RequestsRecorder(server.metricsUrl, server.namespace, 1_000).start();
    const modes: ModeFigures[] = [];

    log(`${o.tasks} mediaGeneration workflows, ${o.durationMs} ms each, in a worker process of their own…`);
    await emu.admin('POST', '/counters/reset');
    const webhookPort = o.webhooks ? await getFreePort() : undefined;
    // As a user sets them: the receiver in the worker, every other webhook setting its default.
    const webhookEnv: Record<string, string> = webhookPort
      ? {
          WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
          WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}`,
          WEBHOOK_SECRET: randomBytes(32).toString('base64url'),
        }
      : {};
    /** The N generations on a fresh worker process, `mode` naming their ids and prompts. */
    const generations = (
      mode: string,
      label: string,
      through: Client,
      env: Record<string, string>,
      startedBy: StartedBy = 'client',
    ) =>
      worker.runUntil(async (proc) => {
        const idle = await readIdle(proc);
        const load = await textToVideoLoad({
          client: through,
          taskQueue,
          idPrefix: `bench-${taskQueue}-${mode}`,
          count: o.tasks,
          closeTimeoutMs,
          log,
          lost: () => proc.lost(),
          prompt: (i) => prompt(mode, i),
          startedBy,
        });
        return { load, worker: workerFigures(label, proc, idle, load) };
      }, env);
    const media = await generations('wf', 'mediaGeneration', client, webhookEnv);
    const mediaRuns = mediaTaskRuns(media.load);
    const phases = await submitPhases(client, media.load);
    const ours = await modeFigures(
      emu,
      o.webhooks ? 'workflows, webhooks first' : 'workflows, eta-aware polling',
      mediaRuns,
      media.worker.makespanS * 1000,
    );
    modes.push(ours.figures);
    const mediaServer = serverRequestFigures(
      recorder,
      ours.waits,
      { from: media.load.firstStartAt, to: media.load.allClosedSeenAt, tasks: o.tasks },
      { startMs: 1_000 },
    );
    const mediaActions = await loadActions(client, media.load, recorder);

    // The payload codec's price (src/codec): the same generations with encryption off, worker and client alike.
    log(`${o.tasks} mediaGeneration workflows again, payload encryption off, on a fresh worker process…`);
    const plainClient = allowPlaintext(
      new Client({ connection: client.connection, namespace: client.options.namespace }),
      client.options.namespace,
    );
    const codecOff = await generations('clear', 'mediaGeneration, encryption off', plainClient, {
      ...webhookEnv,
      PAYLOAD_ENCRYPTION: 'off',
    });
    const codecCpuRatio = round(media.worker.cpuMsPerStart / codecOff.worker.cpuMsPerStart);

    // What a start without the first search attributes costs (a plain Temporal client's, in any language).
    log(`${o.tasks} mediaGeneration workflows again, started by a plain Temporal client, on a fresh worker process…`);
    const plainStart = await generations('plain-start', 'mediaGeneration, plain start', client, webhookEnv, 'plain');
    const plainStartActions = await loadActions(client, plainStart.load, recorder);

    log(`the SDK's floor: ${o.tasks} workflows that only sleep as long, on a fresh worker process…`);
    const floor = await worker.runUntil(async (proc) => {
      const idle = await readIdle(proc);
      const load = await runWorkflowLoad({
        client,
        taskQueue,
        workflowType: 'sdkFloor',
        idPrefix: `bench-${taskQueue}-floor`,
        count: o.tasks,
        startWindowMs: 0,
        args: (i) => [durationOf(i)],
        closeTimeoutMs,
        withResults: false,
        log,
        lost: () => proc.lost(),
      });
      return { load, worker: workerFigures('sdkFloor', proc, idle, load) };
    });
    // A floor workflow waits on its timer: from TimerStarted to TimerFired in its history.
    const floorRuns = await floorHistories(client, floor.load.workflows);
    const floorServer = serverRequestFigures(
      recorder,
      floorRuns.waits,
      { from: floor.load.firstStartAt, to: floor.load.allClosedSeenAt, tasks: o.tasks },
      { startMs: 1_000 },
    );
    const floorSeen = floorDetection();
    const floorActions = await loadActions(client, floor.load, recorder, floorSeen.onHistory);

    const peerModes: ModeFigures[] = [];
    const peer = (variant: PeerVariant) =>
      runPeer(variant, {
        worker,
        client,
        taskQueue,
        recorder,
        tasks: o.tasks,
        closeTimeoutMs,
        log,
        prompt: (i) => prompt(`peer-${variant}`, i),
        measure: async (mode, runs, makespanMs) => {
          const seen = await modeFigures(emu, mode, runs, makespanMs);
          peerModes.push(seen.figures);
          return seen;
        },
      });
    const peers = { frequent: await peer('frequent'), infrequent: await peer('infrequent') };
    await recorder.stop();

    log('plain script, fixed 1 s poll loop…');
    await emu.admin('POST', '/counters/reset');
    const fixed = await timed(o.tasks, (i) => fixedIntervalRun(platform, prompt('fixed', i)));
    modes.push((await modeFigures(emu, 'plain script, fixed 1 s loop', fixed.runs, fixed.ms)).figures);

    log('plain script, eta-aware polling…');
    await emu.admin('POST', '/counters/reset');
    const plain = await timed(o.tasks, (i) => etaAwareRun(platform, prompt('plain', i)));
    modes.push((await modeFigures(emu, 'plain script, eta-aware polling', plain.runs, plain.ms)).figures);
    modes.push(...peerModes);

    const [wf, fixedLoop, plainEta] = modes;
    const makespanRatio = round(wf.makespanS / plainEta.makespanS);
    const oursFigures = {
      ...generationFigures(media.worker, mediaServer, mediaActions, wf),
      actionsPerGenerationFairnessOn: mediaActions.perGenerationFairnessOn,
      plainStart: { cpuMsPerGeneration: plainStart.worker.cpuMsPerStart, actions: plainStartActions },
    };
    const floorFigures = generationFigures(floor.worker, floorServer, floorActions, {
      pollsPerTask: 0,
      detectionP95Ms: floorSeen.p95(),
      submitLagP95Ms: floorRuns.startPhases['start called → its timer started'].p95,
    });
    const checks: Check[] = [
      isTrue('workflows completed', media.worker.completed === o.tasks, media.worker.completed, `${o.tasks}`),
      atMost('makespan ratio, workflows / plain eta-aware script', makespanRatio, MEDIA_TARGETS.makespanRatio(o)),
      atMost('submit lag p95', wf.submitLagP95Ms, MEDIA_TARGETS.submitLagP95Ms, ' ms'),
      atMost('detection p95', wf.detectionP95Ms, MEDIA_TARGETS.detectionP95Ms, ' ms'),
      atMost('detection p95 vs the fixed 1 s loop', wf.detectionP95Ms, fixedLoop.detectionP95Ms, ' ms'),
      isTrue(
        'workflows completed, encryption off',
        codecOff.worker.completed === o.tasks,
        codecOff.worker.completed,
        `${o.tasks}`,
      ),
      isTrue(
        'workflows completed, plain start',
        plainStart.worker.completed === o.tasks,
        plainStart.worker.completed,
        `${o.tasks}`,
      ),
      atMost('worker CPU per generation, encryption on / off', codecCpuRatio, MEDIA_TARGETS.codecCpuRatio),
      atMost(
        `worker RSS peak (target set for 1,000 open; ${media.worker.peakOpen} open here)`,
        media.worker.rssPeakMb,
        MEDIA_TARGETS.workerRssPeakMb,
        ' MB',
      ),
      ...peerChecks(oursFigures, peers, o.tasks),
    ];
    return {
      options: o,
      modes,
      makespanRatio,
      submitPhases: phases,
      floorStartPhases: floorRuns.startPhases,
      worker: {
        mediaGeneration: media.worker,
        mediaGenerationEncryptionOff: codecOff.worker,
        sdkFloor: floor.worker,
        ratio: ratioToFloor(media.worker, floor.worker),
      },
      server: { mediaGeneration: mediaServer, sdkFloor: floorServer },
      ours: oursFigures,
      peers,
      floor: floorFigures,
      codecCpuRatio,
      checks,
      passed: checks.every((c) => c.ok),
    };
  });
}
