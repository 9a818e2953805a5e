// Each shipped example scenario (packages/emulator/scenarios/) end to end: loaded from its file as
// `--scenario` loads it, on an emulator of this file's own (a scenario owns the fault table), with the
// service's workflows on the real dev server riding through it. Clock at 100×: 30 s of the scenario
// pass in 0.3 s.
import path from 'node:path';
import { type BatchJobInput, FailureType, type MediaGenerationInput, WorkflowType } from '@platform-ops/client';
import { loadEmulatorConfig, type RunningEmulator, startEmulator } from '@platform-ops/emulator';
import type { batchJob } from '../../src/operations/batchJob/workflows';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { failureOf } from '../helpers/failures';
import { waitFor } from '../helpers/processes';
import { emulatorPlatform, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

const EXAMPLES = path.join(__dirname, '..', '..', 'packages', 'emulator', 'scenarios');
const CLOCK_SPEED = 100;
/** Emulated time all but stopped: only advanceClock moves it. */
const FROZEN = 1e-6;

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, host: '127.0.0.1', clockSpeed: CLOCK_SPEED });
});
afterAll(() => emu.close());
afterEach(() => emu.admin.reset());

/** Loads an example file exactly as `platform-ops emulator --scenario <file>` reads it. */
async function playExample(file: string): Promise<number> {
  const { scenario } = loadEmulatorConfig({}, { scenario: path.join(EXAMPLES, file) });
  const view = await emu.admin.loadScenario(scenario!);
  return view.startedAt as number;
}

const run = <T>(prefix: string, fn: (ctx: TemporalTestContext) => Promise<T>) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emu.url) });

const FAST_POLLING = { minIntervalMs: 100, maxIntervalMs: 500 };

function startMedia(ctx: TemporalTestContext, input: MediaGenerationInput) {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId('scenario-media'),
    args: [input],
  });
}

/**
 * Plays an example with emulated time held still (only advanceClock moves it) and starts a
 * generation; resolves once the emulator has its submit, at t = 0 of the scenario.
 */
async function playAndSubmit(ctx: TemporalTestContext, file: string, prompt: string) {
  await emu.admin.setClockSpeed(FROZEN);
  const startedAt = await playExample(file);
  const handle = await startMedia(ctx, { operation: 'text-to-video', request: { prompt }, polling: FAST_POLLING });
  await waitFor(async () => (await emu.admin.counters()).submissions.total === 1, 30_000, 'the submit');
  return { startedAt, handle };
}

describe('example scenarios end to end', () => {
  it('outage.json: a generation whose task ends inside the 5-minute outage succeeds after it, outputs kept', () =>
    run('scenario-outage', async (ctx) => {
      // The outage meets the polls, not the submit. The task ends at t = 60 s, inside the outage (30 s to
      // 5 min 30 s): its success can only be seen after.
      const { startedAt, handle } = await playAndSubmit(ctx, 'outage.json', 'a harbour [emulator:duration=60000]');
      await emu.admin.setClockSpeed(CLOCK_SPEED);
      const result = await handle.result();
      const { now } = await emu.admin.clock();
      expect(now - startedAt).toBeGreaterThanOrEqual(330_000);
      expect(result.outputs).toHaveLength(1);
      const counters = await emu.admin.counters();
      expect(counters.faultsInjected.byRoute.taskResult).toBeGreaterThan(0);
      expect(counters.submissions.total).toBe(1);
      expect(await emu.admin.scenario()).toMatchObject({ finished: true, events: [{ state: 'over' }] });
    }));

  it('rate-limit-storm.json: the first generation is refused as ILLEGAL_PROMPT, the next one rides the 429 storm', () =>
    run('scenario-storm', async (ctx) => {
      // The first submit lands before the storm.
      const { startedAt, handle: first } = await playAndSubmit(
        ctx,
        'rate-limit-storm.json',
        'a plain prompt [emulator:duration=300]',
      );
      await emu.admin.advanceClock(1_000);
      const refused = await failureOf(first.result());
      expect(refused.type).toBe(FailureType.GenerationFailed);
      expect(refused.message).toContain('ILLEGAL_PROMPT');

      // Into the storm (10 s to 2 min 10 s), held there until a submit has met it: every call answers 429.
      await emu.admin.advanceClock(Math.max(0, 10_000 - ((await emu.admin.clock()).now - startedAt)));
      const handle = await startMedia(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'the same plain prompt [emulator:duration=300]' },
        polling: FAST_POLLING,
        submission: { backoffInitialMs: 100, backoffMaxMs: 500 },
      });
      await waitFor(
        async () => ((await emu.admin.counters()).faultsInjected.byRoute.submitTextToVideo ?? 0) > 0,
        30_000,
        'a submit in the storm',
      );
      await emu.admin.setClockSpeed(CLOCK_SPEED);
      const result = await handle.result();
      expect(result.outputs).toHaveLength(1);
      expect(result.submissions.some((s) => s.outcome === 'refused' && s.error?.type === FailureType.RateLimited)).toBe(
        true,
      );
      const { now } = await emu.admin.clock();
      expect(now - startedAt).toBeGreaterThanOrEqual(130_000);
      expect((await emu.admin.counters()).submissions.total).toBe(2);
    }));

  it('batch-expiry.json: a batch of five requests expires on the platform; the workflow reports Expired', () =>
    run('scenario-batch', async (ctx) => {
      await playExample('batch-expiry.json');
      const input: BatchJobInput = {
        endpoint: '/v1/completions',
        requests: Array.from({ length: 5 }, (_, i) => ({
          custom_id: `r${i}`,
          body: { model: 'deepseek/deepseek-v3', prompt: `p${i}` },
        })),
        polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
      };
      const result = await ctx.client.workflow.execute<typeof batchJob>(WorkflowType.batchJob, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('scenario-batch'),
        args: [input],
      });
      expect(result).toMatchObject({ outcome: 'Expired', status: 'EXPIRED' });
      // 10 minutes of window, 5 per request after validation: one request ran, four did not.
      expect(result.requestCounts.total).toBe(5);
      expect(result.summary).toMatchObject({ succeeded: 1, notRun: 4 });
    }));
});
