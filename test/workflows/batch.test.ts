// batchJob end to end on the shared dev server and emulator (clock speed 10; each batch's phases are
// shortened further through the emulator's metadata overrides): completion, failure, expiry at the
// end of the window, the cancel Update, cancelling the workflow, bad input, and large outputs kept
// out of the workflow's payloads.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  type BatchJobInput,
  batchProgressQuery,
  cancelBatchUpdate,
  FailureType,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { batchJob } from '../../src/operations/batchJob/workflows';
import { failureOf } from '../helpers/failures';
import { waitFor } from '../helpers/processes';
import {
  emulatorPlatform,
  eventTypes,
  recordHistory,
  uniqueId,
  withWorker,
  type TemporalTestContext,
} from '../helpers/temporal';

const FAST = { initialIntervalMs: 100, maxIntervalMs: 500 };
/** Emulated ms (clock speed 10): validation and finalizing take 10 ms real, each request `perRequest`/10. */
const timings = (perRequestMs: number) => ({
  emulator_validating_ms: '100',
  emulator_per_request_ms: String(perRequestMs),
  emulator_finalizing_ms: '100',
  emulator_cancelling_ms: '100',
});
const chat = (id: string, content: string) => ({
  custom_id: id,
  body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content }] },
});

function start(ctx: TemporalTestContext, input: BatchJobInput, prefix = 'batch') {
  return ctx.client.workflow.start<typeof batchJob>(WorkflowType.batchJob, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId(prefix),
    args: [input],
  });
}

describe('batchJob', () => {
  it('completes: counts, output and error files kept, a per-request summary, and a 48 h window timer', () =>
    withWorker('batch-complete', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', 'hello'), chat('b', 'this one fails [emulator:fail]'), chat('c', 'bye')],
        polling: FAST,
        metadata: timings(100),
      });
      const result = await handle.result();
      expect(result).toMatchObject({ outcome: 'Completed', status: 'COMPLETED', createAttempts: 1 });
      expect(result.requestCounts).toEqual({ total: 3, completed: 2, failed: 1 });
      expect(result.output).toMatchObject({ lines: 2 });
      expect(result.errors).toMatchObject({ lines: 1 });
      expect(readFileSync(fileURLToPath(result.output!.uri), 'utf8').trim().split('\n')).toHaveLength(2);
      expect(result.summary).toMatchObject({ succeeded: 2, failed: 1, notRun: 0 });
      expect(result.summary!.sampleFailures).toEqual([expect.objectContaining({ custom_id: 'b' })]);
      expect(readFileSync(fileURLToPath(result.summary!.perRequestUri), 'utf8').trim().split('\n')).toHaveLength(3);

      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.taskId)).toBe(result.batchId);
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('COMPLETED');
      expect(typedSearchAttributes.get(SearchAttributes.requestsCompleted)).toBe(2);
      expect(typedSearchAttributes.get(SearchAttributes.requestsFailed)).toBe(1);

      // The window is a durable timer of 48 h from the batch's creation (less the moments since).
      const history = await handle.fetchHistory();
      const timers = (history.events ?? [])
        .map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.seconds)
        .filter((s) => s !== undefined && s !== null)
        .map(Number);
      expect(timers.length).toBeGreaterThanOrEqual(1);
      expect(timers[0]).toBeGreaterThan(48 * 3600 - 60);
      expect(timers[0]).toBeLessThanOrEqual(48 * 3600);
      await recordHistory(handle, 'batchJob-completed');
    }));

  it('fails as BatchFailed when the platform fails the batch', () =>
    withWorker('batch-failed', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', 'hello')],
        polling: FAST,
        metadata: { ...timings(100), emulator: 'fail' },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.BatchFailed);
      await recordHistory(handle, 'batchJob-failed');
    }));

  it('expires: when the window (and its grace) passes, cancels the batch and reports Expired', () =>
    withWorker('batch-expired', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/completions',
        requests: Array.from({ length: 5 }, (_, i) => ({
          custom_id: `r${i}`,
          body: { model: 'deepseek/deepseek-v3', prompt: `p${i}` },
        })),
        polling: FAST,
        // 1.8 s of window, no grace; each request takes 2 s real: at most one of them runs.
        windowHours: 0.0005,
        graceMinutes: 0,
        metadata: timings(20_000),
      });
      const result = await handle.result();
      expect(result).toMatchObject({ outcome: 'Expired', status: 'CANCELLED', cancelledBy: 'window' });
      expect(result.requestCounts.total).toBe(5);
      expect(result.summary!.notRun).toBeGreaterThanOrEqual(4);
      expect(result.summary!.succeeded + result.summary!.notRun).toBe(5);
      const batch = await emulatorPlatform().getBatch(result.batchId);
      expect(batch.status).toBe('CANCELLED');
      await recordHistory(handle, 'batchJob-expired');
    }));

  it('cancels the platform batch through the cancelBatch Update and reports the final state', () =>
    withWorker('batch-update', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', 'one'), chat('b', 'two'), chat('c', 'three')],
        polling: FAST,
        metadata: timings(50_000),
      });
      await waitFor(async () => (await handle.query(batchProgressQuery)).status === 'PROGRESS', 20_000, 'PROGRESS');
      const final = await handle.executeUpdate(cancelBatchUpdate, { args: [{ reason: 'not needed any more' }] });
      expect(final.status).toBe('CANCELLED');
      const result = await handle.result();
      expect(result).toMatchObject({
        outcome: 'Cancelled',
        cancelledBy: 'update',
        cancelReason: 'not needed any more',
      });
      expect(result.summary!.notRun).toBeGreaterThanOrEqual(2);
      await recordHistory(handle, 'batchJob-cancelled');
    }));

  it('cancelling the workflow cancels the platform batch', () =>
    withWorker('batch-wf-cancel', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', 'one'), chat('b', 'two')],
        polling: FAST,
        metadata: timings(50_000),
      });
      await waitFor(async () => (await handle.query(batchProgressQuery)).status === 'PROGRESS', 20_000, 'PROGRESS');
      const { batchId } = await handle.query(batchProgressQuery);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect((await emulatorPlatform().getBatch(batchId!)).status).toBe('CANCELLED');
    }));

  it('fails fast on bad lines, naming the line and the rule, with nothing uploaded', () =>
    withWorker('batch-invalid', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [
          chat('a', 'one'),
          chat('a', 'two'),
          { custom_id: 'c', body: { model: 'other-model', messages: [] } },
        ],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('line 2.custom_id: must be unique');
      expect(failure.message).toContain('line 3.body.model: must be the batch');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      await recordHistory(handle, 'batchJob-invalid');
    }));

  it('keeps the history small however many polls the wait takes: polls are retries, not activities', () =>
    withWorker('batch-history', async (ctx) => {
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', 'one'), chat('b', 'two')],
        // As often as retry-as-poll goes (about a second: the server's retry timers are no finer) for
        // about 22 s: some 20 polls.
        polling: { initialIntervalMs: 100, maxIntervalMs: 100 },
        metadata: timings(110_000),
        keepOutputs: false,
      });
      // Between checkpoints the server holds the poll as a retry: a pending activity with no slot,
      // no heartbeat, and the last poll's counts in its last failure.
      await waitFor(
        async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) > 3,
        20_000,
        'a poll retried',
      );
      const [pending] = (await handle.describe()).raw.pendingActivities ?? [];
      expect(pending.activityType?.name).toBe('pollBatch');
      expect(pending.lastFailure?.applicationFailureInfo?.type).toBe(FailureType.StillRunning);
      expect(pending.heartbeatDetails).toBeFalsy();

      const result = await handle.result();
      expect(result.polls).toBeGreaterThanOrEqual(20);
      const events = (await handle.fetchHistory()).events ?? [];
      const polls = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'pollBatch');
      // Checkpoints only: the status changes and each 10 % of requests done (here 50 % and 100 %).
      expect(polls.length).toBeLessThanOrEqual(5);
      expect(Math.max(...events.map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0))).toBeGreaterThan(5);
      expect(events.length).toBeLessThan(60);
    }));

  it('keeps a large output out of the workflow payload: references only', () =>
    withWorker('batch-large', async (ctx) => {
      const requests = Array.from({ length: 400 }, (_, i) =>
        chat(`req-${i}`, `Write a long answer number ${i}. ${'lorem ipsum dolor sit amet '.repeat(20)}`),
      );
      const handle = await start(ctx, {
        endpoint: '/v1/chat/completions',
        requests,
        polling: FAST,
        metadata: timings(1),
      });
      const result = await handle.result();
      expect(result.requestCounts).toEqual({ total: 400, completed: 400, failed: 0 });
      expect(result.output!.bytes).toBeGreaterThan(100_000);
      expect(JSON.stringify(result).length).toBeLessThan(4_000);
      // No activity result in the history carries the output either.
      const { EventType } = temporal.api.enums.v1;
      const history = await handle.fetchHistory();
      const results = (history.events ?? []).filter(
        (e) =>
          e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED ||
          e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      );
      const payloadBytes = (e: (typeof results)[number]) =>
        (
          e.activityTaskCompletedEventAttributes?.result ?? e.workflowExecutionCompletedEventAttributes?.result
        )?.payloads
          ?.map((p) => p.data?.length ?? 0)
          .reduce((a, b) => a + b, 0) ?? 0;
      expect(Math.max(...results.map(payloadBytes))).toBeLessThan(8_000);
    }));
});
