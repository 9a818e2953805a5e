// Attaching (issue 15 part 5), end to end on the shared dev server and an emulator of this file's own
// (clock speed 10): a task and a batch made directly on the emulator over HTTP, as an outside system
// makes them, followed by mediaGeneration and batchJob's attach form with their outputs kept (sha256)
// and nothing submitted or created a second time (the emulator's counters); attaching twice answers
// with the same run; an unknown id fails clearly; a bad input of either form is refused naming the
// field; and the starter's `attach task <id> --wait`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  attachBatch,
  attachTask,
  FailureType,
  mediaProgressQuery,
  SearchAttributes,
  startWorkflow,
} from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { runStarter } from '../helpers/processes';
import { emulatorPlatform, recordHistory, withWorker } from '../helpers/temporal';

const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };
const BATCH_FAST = { initialIntervalMs: 100, maxIntervalMs: 500 };

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());

const withAttachWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

const sha256Of = (uri: string) =>
  createHash('sha256')
    .update(readFileSync(fileURLToPath(uri)))
    .digest('hex');

interface Counters {
  submissions: { total: number };
  requests: Record<string, number>;
}
const counters = () => emulator.admin<Counters>('GET', '/counters');
const batchCreates = (c: Counters) => c.requests.createBatch ?? 0;
const fileUploads = (c: Counters) => c.requests.uploadBatchInputFile ?? 0;

/** A text-to-video task submitted straight to the emulator, not through a workflow. */
async function submitElsewhere(prompt = 'a lighthouse at dusk [emulator:duration=1500]'): Promise<string> {
  const res = await emulator.raw('POST', '/v3/async/vendor-v3.0-pro-t2v', { json: { prompt, duration: 5 } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { task_id: string }).task_id;
}

/** A batch uploaded and created straight on the emulator. */
async function batchElsewhere(): Promise<string> {
  const lines = ['a', 'b', 'c'].map((id) =>
    JSON.stringify({
      custom_id: id,
      body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: `hello ${id}` }] },
    }),
  );
  const form = new FormData();
  form.append('file', new Blob([lines.join('\n') + '\n'], { type: 'application/jsonl' }), 'input.jsonl');
  form.append('purpose', 'batch');
  const auth = { authorization: `Bearer ${emulator.key}` };
  const uploaded = await fetch(`${emulator.url}/openai/v1/files`, { method: 'POST', body: form, headers: auth });
  expect(uploaded.status).toBe(200);
  const { id: inputFileId } = (await uploaded.json()) as { id: string };
  const created = await emulator.raw('POST', '/openai/v1/batches', {
    json: {
      input_file_id: inputFileId,
      endpoint: '/v1/chat/completions',
      completion_window: '48h',
      metadata: {
        emulator_validating_ms: '100',
        emulator_per_request_ms: '100',
        emulator_finalizing_ms: '100',
        emulator_cancelling_ms: '100',
      },
    },
  });
  expect(created.status).toBe(200);
  return ((await created.json()) as { id: string }).id;
}

describe('mediaGeneration attach', () => {
  it('follows a task submitted elsewhere, keeps its video, submits nothing; attaching again is the same run', () =>
    withAttachWorker('attach-task', async (ctx) => {
      const taskId = await submitElsewhere();
      const before = await counters();

      const first = await attachTask(ctx.client, taskId, { taskQueue: ctx.taskQueue, options: { polling: FAST } });
      expect(first.started).toBe(true);
      expect(first.workflowId).toBe(`mediaGeneration:attach-task:${taskId}`);
      const result = await first.handle.result();

      expect(result).toMatchObject({ attached: true, taskId, submissions: [], possibleDuplicates: 0 });
      expect(result.operation).toBeUndefined();
      expect(result.timings.submittedAt).toBeUndefined();
      expect(result.timings.attachedAt).toBeDefined();
      expect(result.generations).toEqual([expect.objectContaining({ taskId, status: 'TASK_STATUS_SUCCEED' })]);
      expect(result.outputs).toHaveLength(1);
      const [video] = result.outputs;
      expect(video.kind).toBe('video');
      expect(sha256Of(video.kept.uri)).toBe(video.kept.sha256);
      expect(result.polls).toBeGreaterThanOrEqual(1);

      // Nothing paid was sent: the only submission is the one made "elsewhere".
      const after = await counters();
      expect(after.submissions.total).toBe(before.submissions.total);

      const description = await first.handle.describe();
      expect(description.typedSearchAttributes.get(SearchAttributes.taskId)).toBe(taskId);
      expect(description.typedSearchAttributes.get(SearchAttributes.status)).toBe('SUCCEEDED');
      expect(await description.staticSummary()).toBe(`attach task ${taskId}`);
      expect(await first.handle.query(mediaProgressQuery)).toMatchObject({ status: 'SUCCEEDED', taskId });

      // The same task again: the run the first attach started, closed or not.
      const again = await attachTask(ctx.client, taskId, { taskQueue: ctx.taskQueue, options: { polling: FAST } });
      expect(again).toMatchObject({ started: false, workflowId: first.workflowId });
      expect((await again.handle.describe()).runId).toBe(description.runId);
      await recordHistory(first.handle, 'mediaGeneration-attached-1.3');
    }));

  it('an unknown task id fails as NotFound, saying there is nothing to attach to', () =>
    withAttachWorker('attach-task-unknown', async (ctx) => {
      const { handle } = await attachTask(ctx.client, 'task-that-does-not-exist', {
        taskQueue: ctx.taskQueue,
        options: { polling: FAST },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.NotFound);
      expect(failure.message).toMatch(
        /task task-that-does-not-exist does not exist on the platform.*nothing to attach/,
      );
      expect(failure.nonRetryable).toBe(true);
      await recordHistory(handle, 'mediaGeneration-attach-not-found');
    }));

  it('refuses both forms at once, and a bad task id, naming the field, before anything starts', async () =>
    withAttachWorker('attach-task-invalid', async (ctx) => {
      await expect(
        startWorkflow(
          ctx.client,
          'mediaGeneration',
          // Both forms: the type allows neither, a JSON caller could send it.
          { operation: 'text-to-video', request: { prompt: 'x' }, attach: { taskId: 't1' } } as never,
          { taskQueue: ctx.taskQueue },
        ),
      ).rejects.toThrow(
        /attach: give either attach \(an existing task\) or a request, not both \(also given: operation, request\)/,
      );
      await expect(attachTask(ctx.client, 'has a space', { taskQueue: ctx.taskQueue })).rejects.toThrow(
        /attach\.taskId: letters, digits and \. _ : @ - only/,
      );
      await expect(attachTask(ctx.client, '', { taskQueue: ctx.taskQueue })).rejects.toThrow(
        /attach\.taskId: must not be empty/,
      );
      // A request keeps its own messages.
      await expect(
        startWorkflow(
          ctx.client,
          'mediaGeneration',
          { operation: 'text-to-video', request: { prompt: 'x', duration: 999 } } as never,
          {
            taskQueue: ctx.taskQueue,
          },
        ),
      ).rejects.toThrow(/request\.duration/);
      // Options of a submit make no sense for an attach.
      await expect(
        startWorkflow(
          ctx.client,
          'mediaGeneration',
          { attach: { taskId: 't1' }, submission: { onAmbiguous: 'resubmit' } } as never,
          {
            taskQueue: ctx.taskQueue,
          },
        ),
      ).rejects.toThrow(/attach: give either .* \(also given: submission\)/);
    }));
});

describe('batchJob attach', () => {
  it('follows a batch created elsewhere to completion and keeps its output file, creating nothing', () =>
    withAttachWorker('attach-batch', async (ctx) => {
      const batchId = await batchElsewhere();
      const before = await counters();
      const { handle, workflowId, started } = await attachBatch(ctx.client, batchId, {
        taskQueue: ctx.taskQueue,
        options: { polling: BATCH_FAST },
      });
      expect(started).toBe(true);
      expect(workflowId).toBe(`batchJob:attach-batch:${batchId}`);
      const result = await handle.result();
      expect(result).toMatchObject({ attached: true, batchId, outcome: 'Completed', createAttempts: 0 });
      expect(result.requestCounts).toEqual({ total: 3, completed: 3, failed: 0 });
      expect(result.output).toMatchObject({ lines: 3 });
      expect(sha256Of(result.output!.uri)).toBe(result.output!.sha256);
      const after = await counters();
      expect(batchCreates(after)).toBe(batchCreates(before));
      expect(fileUploads(after)).toBe(fileUploads(before));

      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(SearchAttributes.taskId)).toBe(batchId);
      expect(description.typedSearchAttributes.get(SearchAttributes.status)).toBe('COMPLETED');
      expect(await description.staticSummary()).toBe(`attach batch ${batchId}`);
      await recordHistory(handle, 'batchJob-attached');
    }));

  it('an unknown batch id fails as NotFound; a bad input of either form names the field', () =>
    withAttachWorker('attach-batch-invalid', async (ctx) => {
      const { handle } = await attachBatch(ctx.client, 'batch_nope', { taskQueue: ctx.taskQueue });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.NotFound);
      expect(failure.message).toMatch(/batch batch_nope does not exist on the platform/);
      await recordHistory(handle, 'batchJob-attach-not-found');

      await expect(
        startWorkflow(
          ctx.client,
          'batchJob',
          { attach: { batchId: 'b1' }, endpoint: '/v1/chat/completions', inputFileId: 'f1' } as never,
          { taskQueue: ctx.taskQueue },
        ),
      ).rejects.toThrow(
        /attach: give either attach \(an existing batch\) or a request, not both \(also given: endpoint, inputFileId\)/,
      );
      await expect(attachBatch(ctx.client, 'x'.repeat(129), { taskQueue: ctx.taskQueue })).rejects.toThrow(
        /attach\.batchId: must be at most 128 characters long/,
      );
      // The request form's own rule is unchanged.
      await expect(
        startWorkflow(ctx.client, 'batchJob', { endpoint: '/v1/chat/completions' }, { taskQueue: ctx.taskQueue }),
      ).rejects.toThrow(/requests: give exactly one of requests, inputFileId or inputFileUri/);
    }));
});

describe('starter attach', () => {
  it('`attach task <id> --wait` follows the task and prints where its output was kept', () =>
    withAttachWorker('attach-starter', async (ctx) => {
      const taskId = await submitElsewhere('a harbour at noon [emulator:duration=1000]');
      const run = await runStarter(['attach', 'task', taskId, '--wait'], ctx.taskQueue);
      expect(run.stderr).not.toMatch(/Error/);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Attached to task ${taskId}: following it as mediaGeneration workflow`);
      expect(run.stdout).toContain('"attached": true');
      expect(run.stdout).toMatch(/Outputs kept:\n {2}video {2}file:\/\//);

      const repeat = await runStarter(['attach', 'task', taskId], ctx.taskQueue);
      expect(repeat.code).toBe(0);
      expect(repeat.stdout).toContain(`Already attached to task ${taskId}`);

      const wrong = await runStarter(['attach', 'instance', 'i-1'], ctx.taskQueue);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toContain('attach takes "task <taskId>" or "batch <batchId>"');
    }));
});
