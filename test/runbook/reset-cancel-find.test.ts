// The runbook's reset, cancel-or-terminate and find recipes (docs/operations.md), run as the page
// writes them against the dev server and the emulator.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import {
  type BatchJobInput,
  batchProgressQuery,
  type MediaGenerationInput,
  mediaProgressQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { batchJob } from '../../src/operations/batchJob/workflows';
import type { evaluateDecision } from '../../src/operations/evaluateDecision/workflows';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { waitFor } from '../helpers/processes';
import { emulatorPlatform, temporalCli, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

const RUNBOOK = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
/** The lines of the page's first ```text block after `heading`. */
function queriesUnder(heading: string): string[] {
  const section = RUNBOOK.slice(RUNBOOK.indexOf(heading));
  const block = /```text\n([\s\S]*?)```/.exec(section)![1];
  return block.trim().split('\n');
}

function startMedia(ctx: TemporalTestContext, prompt: string, polling: MediaGenerationInput['polling']) {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId('runbook-media'),
    args: [{ operation: 'text-to-video', request: { prompt }, keepOutputs: false, polling }],
  });
}

describe('runbook: reset, cancel or terminate, find', () => {
  it('resets a completed evaluateDecision to its last workflow task: a new run completes the same', () =>
    withWorker('runbook-reset', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start<typeof evaluateDecision>(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: uniqueId('runbook-decision'),
        args: [{ state: 'a caption', questions: [{ kind: 'yes_no', question: 'Is it safe for work?' }] }],
      });
      const first = await handle.result();
      const { stdout } = await temporalCli([
        'workflow',
        'reset',
        '--workflow-id',
        handle.workflowId,
        '--type',
        'LastWorkflowTask',
        '--reason',
        'runbook test',
        '--output',
        'json',
      ]);
      const { runId } = JSON.parse(stdout) as { runId: string };
      expect(runId).not.toBe(handle.firstExecutionRunId);
      const reset = client.workflow.getHandle(handle.workflowId, runId);
      expect(await reset.result()).toEqual(first);
      expect((await reset.describe()).status.name).toBe('COMPLETED');
    }));

  it('a cancelled generation leaves its platform task running to its end', () =>
    withWorker('runbook-cancel-media', async (ctx) => {
      // 20 emulated seconds: 2 s real on the tests' emulator (clock speed 10).
      const handle = await startMedia(ctx, 'a short take [emulator:duration=20000]', {
        minIntervalMs: 5_000,
        maxIntervalMs: 5_000,
      });
      await waitFor(async () => (await handle.query(mediaProgressQuery)).taskId !== undefined, 20_000, 'the submit');
      const { taskId } = await handle.query(mediaProgressQuery);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      const platform = emulatorPlatform();
      await waitFor(
        async () => (await platform.getTaskResult(taskId!)).task.status === 'TASK_STATUS_SUCCEED',
        20_000,
        'the task to succeed on the platform',
      );
    }));

  it('a terminated batchJob leaves its platform batch running', () =>
    withWorker('runbook-terminate-batch', async (ctx) => {
      const input: BatchJobInput = {
        endpoint: '/v1/chat/completions',
        requests: [
          { custom_id: 'a', body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: 'hi' }] } },
        ],
        polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
        metadata: { emulator_per_request_ms: '50000' },
      };
      const handle = await ctx.client.workflow.start<typeof batchJob>(WorkflowType.batchJob, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('runbook-batch'),
        args: [input],
      });
      await waitFor(async () => (await handle.query(batchProgressQuery)).status === 'PROGRESS', 20_000, 'PROGRESS');
      const { batchId } = await handle.query(batchProgressQuery);
      await handle.terminate('runbook test');
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await emulatorPlatform().getBatch(batchId!)).status).toBe('PROGRESS');
      await emulatorPlatform().cancelBatch(batchId!);
    }));

  it('runs every query of "Find stuck or slow runs", and those about a processing generation find it', () =>
    withWorker('runbook-find', async (ctx) => {
      const handle = await startMedia(ctx, 'a long take [emulator:duration=600000]', {
        minIntervalMs: 1_000,
        maxIntervalMs: 1_000,
      });
      await waitFor(async () => (await handle.query(mediaProgressQuery)).status === 'PROCESSING', 20_000, 'PROCESSING');
      const { taskId } = await handle.query(mediaProgressQuery);
      const values: Record<string, string> = {
        '{an hour ago}': new Date(Date.now() - 3_600_000).toISOString(),
        '{member}': 'member-demo',
        '{task id}': taskId!,
      };
      const queries = queriesUnder('## Find stuck or slow runs');
      expect(queries).toHaveLength(7);
      const found: string[] = [];
      for (const documented of queries) {
        const filled = documented.replace(/\{[^}]+\}/g, (p) => values[p]);
        const query = `(${filled}) AND TaskQueue = '${ctx.taskQueue}'`;
        const ids: string[] = [];
        for await (const w of ctx.client.workflow.list({ query })) ids.push(w.workflowId);
        if (ids.includes(handle.workflowId)) found.push(documented);
      }
      expect(found).toEqual([
        "ExecutionStatus = 'Running' AND PlatformOperation = 'mediaGeneration' AND PlatformStatus = 'PROCESSING'",
        "PlatformTaskId = '{task id}'",
      ]);
      await handle.cancel();
    }));
});
