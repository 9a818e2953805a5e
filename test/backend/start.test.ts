// The typed client for backends on the shared dev server and an emulator of this file's own: inputs
// are checked before anything starts, an idempotency key starts a paid job at most once (running,
// completed or failed), a reused key with another request is refused, and each run carries its
// summary for the Web UI.
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  FailureType,
  IdempotencyKeyReusedError,
  workflowHandle,
  mediaProgressQuery,
  startWorkflow,
  type MediaGenerationInput,
} from '@platform-ops/client';
import { failureOf } from '../helpers/failures';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, uniqueId, withWorker } from '../helpers/temporal';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clockSpeed: 100 });
});
afterAll(() => emu.close());
afterEach(() => emu.admin('POST', '/reset'));
const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };

const video = (prompt: string): MediaGenerationInput => ({
  operation: 'text-to-video',
  request: { prompt, duration: 5 },
  polling: FAST,
  memberId: 'member-demo',
});

const submissions = async (): Promise<number> =>
  (await emu.admin<{ submissions: { total: number } }>('GET', '/counters')).submissions.total;

describe('backend start helpers', () => {
  it('refuse a bad input naming the field and the rule, before anything starts', () =>
    withWorker(
      'backend-invalid',
      async (ctx) => {
        const key = uniqueId('order');
        const err = await startWorkflow(
          ctx.client,
          'mediaGeneration',
          { ...video('a cat'), request: { prompt: 'a cat', duration: 999 } } as unknown as MediaGenerationInput,
          { taskQueue: ctx.taskQueue, idempotencyKey: key },
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ApplicationFailure);
        expect(err).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
        expect(String((err as Error).message)).toMatch(/request\.duration: /);
        await expect(workflowHandle(ctx.client, 'mediaGeneration', key).describe()).rejects.toBeInstanceOf(
          WorkflowNotFoundError,
        );

        const badKey = await startWorkflow(
          ctx.client,
          'renewInstance',
          { instanceId: 'inst-1', months: 1 },
          { taskQueue: ctx.taskQueue, idempotencyKey: 'order 42/../x' },
        ).catch((e: unknown) => e);
        expect(String((badKey as Error).message)).toMatch(/idempotencyKey: letters, digits/);
        expect(await submissions()).toBe(0);
      },
      { platform: emulatorPlatform(emu.url) },
    ));

  it('start a paid job once per idempotency key: while it runs, after it completes, and typed', () =>
    withWorker(
      'backend-idem',
      async (ctx) => {
        const key = uniqueId('order');
        const input = video('waves at dusk [emulator:duration=1500]');
        const opts = { taskQueue: ctx.taskQueue, idempotencyKey: key };

        // Three retries of one request racing each other: one job, one starter.
        const racing = await Promise.all(
          [0, 1, 2].map(() => startWorkflow(ctx.client, 'mediaGeneration', structuredClone(input), opts)),
        );
        expect(racing.filter((r) => r.started)).toHaveLength(1);
        expect(new Set(racing.map((r) => r.workflowId))).toEqual(new Set([`mediaGeneration:${key}`]));
        const [first, again] = racing;

        const result = await again.handle.result();
        expect(result.outputs.map((o) => o.kind)).toEqual(['video']);
        const progress = await first.handle.query(mediaProgressQuery);
        expect(progress.status).toBe('SUCCEEDED');

        // Completed: a retried request answers with the same run and its result, and pays nothing.
        const late = await startWorkflow(ctx.client, 'mediaGeneration', input, opts);
        expect(late.started).toBe(false);
        const described = await late.handle.describe();
        expect(described.runId).toBe((await first.handle.describe()).runId);
        expect((await late.handle.result()).taskId).toBe(result.taskId);
        expect(await submissions()).toBe(1);

        // The run says what it is for in the Web UI.
        expect(await described.staticSummary()).toBe('text-to-video, 5 s, member member-demo');
      },
      { platform: emulatorPlatform(emu.url) },
    ));

  it('refuse the same key for a different request, and start nothing', () =>
    withWorker(
      'backend-reuse',
      async (ctx) => {
        const key = uniqueId('order');
        const opts = { taskQueue: ctx.taskQueue, idempotencyKey: key };
        await startWorkflow(ctx.client, 'mediaGeneration', video('one [emulator:duration=300]'), opts);
        const err = await startWorkflow(
          ctx.client,
          'mediaGeneration',
          video('another [emulator:duration=300]'),
          opts,
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IdempotencyKeyReusedError);
        expect((err as Error).message).toContain(`mediaGeneration:${key}`);
        await workflowHandle(ctx.client, 'mediaGeneration', key).result();
        expect(await submissions()).toBe(1);
      },
      { platform: emulatorPlatform(emu.url) },
    ));

  it('answer a failed run with that run unless the caller asks to run it again', () =>
    withWorker(
      'backend-failed',
      async (ctx) => {
        const key = uniqueId('order');
        const input = video('refused [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=300]');
        const opts = { taskQueue: ctx.taskQueue, idempotencyKey: key };
        const first = await startWorkflow(ctx.client, 'mediaGeneration', input, opts);
        const firstRunId = (await first.handle.describe()).runId;
        expect(await failureOf(first.handle.result())).toMatchObject({ type: FailureType.GenerationFailed });

        const again = await startWorkflow(ctx.client, 'mediaGeneration', input, opts);
        expect(again.started).toBe(false);
        expect(await submissions()).toBe(1);

        const retried = await startWorkflow(ctx.client, 'mediaGeneration', input, { ...opts, retryFailedRuns: true });
        expect(retried.started).toBe(true);
        expect((await retried.handle.describe()).runId).not.toBe(firstRunId);
        await retried.handle.result().catch(() => undefined);
        expect(await submissions()).toBe(2);
      },
      { platform: emulatorPlatform(emu.url) },
    ));
});
