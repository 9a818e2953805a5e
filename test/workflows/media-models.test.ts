// mediaGeneration's "async" form: any model of the registry (packages/client/src/model-registry.json), end to end on
// the shared dev server and an emulator of this file's own (whose budgets the budget test sets): an
// image model and a speech model with their kept files checked by sha256, an unregistered model sent
// through by the pass-through rule, a body refused by a registry schema and an unknown model refused
// with no activity scheduled, and a budget-gated image job priced from the registry.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import {
  type BudgetGatedJobInput,
  FailureType,
  type MediaGenerationInput,
  mediaProgressQuery,
  MODEL_REGISTRY,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { budgetGatedJob } from '../../src/operations/budgetGatedJob/workflows';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { emulatorPlatform, eventTypes, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());

const withModelWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

function start(ctx: { client: Client; taskQueue: string }, input: MediaGenerationInput, prefix = 'models') {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId(prefix),
    args: [input],
  });
}

const kept = (uri: string) => readFileSync(fileURLToPath(uri));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const submissions = async () =>
  (await emulator.admin<{ submissions: { total: number } }>('GET', '/counters')).submissions.total;

describe('mediaGeneration, any async model', () => {
  it('an image model: submits to its registry path, keeps a real PNG with its sha256', () =>
    withModelWorker('models-image', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'async',
        model: 'qwen-image',
        request: { prompt: 'a red fox in the snow [emulator:duration=1000]', size: '1024*1024' },
        polling: FAST,
        memberId: 'member-demo',
      });
      const result = await handle.result();
      expect(result.operation).toBe('async');
      expect(result.model).toEqual({
        name: 'qwen-image',
        path: 'qwen-image-txt2img',
        passThrough: false,
        expectedOutputs: ['image'],
        missingOutputs: [],
      });
      expect(result.outputs).toHaveLength(1);
      const [image] = result.outputs;
      expect(image.kind).toBe('image');
      const bytes = kept(image.kept.uri);
      expect(sha256(bytes)).toBe(image.kept.sha256);
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(image.kept.uri).toMatch(/\.png$/);
      // The image's NSFW facts count images: one here.
      expect(result.cost).toMatchObject({ images: 1, nsfwDetection: false });

      const task = await emulator.admin<{ operation: string; result: { task: { task_type: string } } }>(
        'GET',
        `/tasks/${result.taskId}`,
      );
      expect(task.operation).toBe('submitAsyncTask');
      expect(task.result.task.task_type).toBe('TXT_TO_IMG');
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.taskId)).toBe(result.taskId);
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('SUCCEEDED');
      expect(await handle.query(mediaProgressQuery)).toMatchObject({ status: 'SUCCEEDED', taskId: result.taskId });
      await recordHistory(handle, 'mediaGeneration-async-image-1.3');
    }));

  it('a speech model: keeps a real WAV', () =>
    withModelWorker('models-speech', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'async',
        model: 'speech-hd',
        request: { text: 'Hello there [emulator:duration=500]', voice_setting: { speed: 1.2 } },
        polling: FAST,
      });
      const result = await handle.result();
      expect(result.outputs.map((o) => o.kind)).toEqual(['audio']);
      const bytes = kept(result.outputs[0].kept.uri);
      expect(sha256(bytes)).toBe(result.outputs[0].kept.sha256);
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(bytes.subarray(8, 12).toString('latin1')).toBe('WAVE');
    }));

  it('an unregistered model by the pass-through rule: sent under its own name, bounds only', () =>
    withModelWorker('models-pass', async (ctx) => {
      const model = 'custom-sketch-v1';
      expect(MODEL_REGISTRY.list().map((m) => m.model)).not.toContain(model);
      const handle = await start(ctx, {
        operation: 'async',
        model,
        request: { prompt: 'a sketch [emulator:duration=500]', any: { field: ['the', 'model', 'takes'] } },
        polling: FAST,
        regeneration: { maxRegenerations: 0 },
      });
      const result = await handle.result();
      expect(result.model).toMatchObject({ name: model, path: model, passThrough: true, missingOutputs: [] });
      // The emulator's pass-through outputs: one of each kind.
      expect(result.outputs.map((o) => o.kind).sort()).toEqual(['audio', 'image', 'video']);
      for (const o of result.outputs) expect(sha256(kept(o.kept.uri))).toBe(o.kept.sha256);
      await recordHistory(handle, 'mediaGeneration-async-pass-through-1.3');
    }));

  it('refuses a body the registry schema does not allow, naming the fields, with no activity scheduled', () =>
    withModelWorker('models-bad-body', async (ctx) => {
      const before = await submissions();
      const handle = await start(ctx, {
        operation: 'async',
        model: 'qwen-image',
        request: { prompt: '', size: 'huge', steps: 30 },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('request.prompt: must not be empty');
      expect(failure.message).toContain('request.size');
      expect(failure.message).toContain('request.steps: is not a known field');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      expect(await submissions()).toBe(before);
      await recordHistory(handle, 'mediaGeneration-async-invalid-body');
    }));

  it('refuses an unknown model at once, naming `model`', () =>
    withModelWorker('models-unknown', async (ctx) => {
      const handle = await start(ctx, { operation: 'async', model: 'no-such-model', request: { prompt: 'x' } });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toMatch(/model: "no-such-model" is not in the model registry/);
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
    }));

  it('a budget-gated image job is priced from the registry, and one without a price needs `cost`', () =>
    withModelWorker('models-budget', async ({ client, taskQueue }) => {
      const perTask = MODEL_REGISTRY.resolve('qwen-image')!.pricePerTask!;
      const memberId = await emulator.freshMember(100 * perTask);
      const job: BudgetGatedJobInput['job'] = {
        workflowType: 'mediaGeneration',
        input: {
          operation: 'async',
          model: 'qwen-image',
          request: { prompt: 'a lighthouse [emulator:duration=300]' },
          regeneration: { maxRegenerations: 0 },
          polling: FAST,
        },
      };
      const run = (input: BudgetGatedJobInput) =>
        client.workflow
          .start<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
            taskQueue,
            workflowId: uniqueId('models-budget'),
            args: [input],
          })
          .then((h) => h.result());
      const result = await run({ memberId, job });
      expect(result.outcome).toBe('Completed');
      expect(result.admission).toMatchObject({
        cost: perTask,
        costSource: 'priceTable',
        costBreakdown: `1 task × ${perTask} (qwen-image)`,
      });
      // The emulator charged the registry's price for the one task.
      expect((await emulator.member(memberId)).spent).toBe(perTask);

      const unpriced = { ...job, input: { ...job.input, model: 'custom-unpriced' } } as BudgetGatedJobInput['job'];
      const failure = await failureOf(run({ memberId, job: unpriced }));
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('cost: is required here: the model registry has no price for model');
    }));
});
