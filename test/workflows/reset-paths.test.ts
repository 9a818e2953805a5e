// After a reset, a generation takes the earlier run's task without waiting for a turn on its quota, a submit
// sent again after a refusal answers from the earlier run alike, a reset batch uploads nothing twice, and a cancel
// of a reset run reaches the job it follows while its reservation is held until that job has ended. On an
// emulator of this file's own, counted with its paid calls.
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { batchProgressQuery, budgetLedgerStateQuery, budgetLedgerWorkflowId, WorkflowType } from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import {
  arrived,
  completedOf,
  events,
  limitQuotaQueue,
  paidCalls,
  reset,
  resetPoint,
  startBudgetGatedGeneration,
  scheduled,
  waitFor,
} from '../helpers/resets';
import { emulatorPlatform, uniqueId, withWorker as withSharedWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());
afterEach(() => emulator.admin('DELETE', '/faults'));

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { ...opts, platform: emulatorPlatform(emulator.url) });

const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };
const SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;

const timedOutInQueue = (all: Parameters<typeof scheduled>[0]) =>
  all.some(
    (e) =>
      e.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType ===
      temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
  );

describe('after a reset', () => {
  it('a generation takes the earlier run’s task without a turn on its quota: the quota’s queue held, it resumes and pays nothing', () =>
    withWorker(
      'reset-requeued',
      async (ctx) => {
        const start = (marker: string) =>
          ctx.client.workflow.start(WorkflowType.mediaGeneration, {
            taskQueue: ctx.taskQueue,
            workflowId: uniqueId('reset-requeued'),
            args: [
              {
                operation: 'text-to-video',
                request: { prompt: `${marker} [emulator:duration=60000]` },
                polling: FAST,
                keepOutputs: false,
              },
            ],
          });
        // The generation to reset: its submit is paid, and it waits for its task.
        const marker = uniqueId('paid');
        const handle = await start(marker);
        await waitFor(handle, (all) => !!completedOf(all, 'submitMediaTask'), 'the submit');
        expect(await paidCalls(emulator, 'submitTextToVideo', marker)).toBe(1);

        // An operator's limit holds the quota queue. Its burst lets a few submits through first: fillers are
        // started until one's submit stays in the queue, unsent.
        await limitQuotaQueue(ctx.client, ctx.taskQueue, 'text-to-video', 0.0001);
        const fillers: WorkflowHandle[] = [];
        for (;;) {
          if (fillers.length >= 6) throw new Error('the submit never waited in its queue: the limit let it through');
          const m = uniqueId('filler');
          const filler = await start(m);
          fillers.push(filler);
          await waitFor(filler, (all) => !!scheduled(all, 'submitMediaTask'), 'a filler’s submit');
          await new Promise((r) => setTimeout(r, 2_000));
          const pending = (await filler.describe()).raw.pendingActivities ?? [];
          if (pending.some((a) => a.state === SCHEDULED) && (await paidCalls(emulator, 'submitTextToVideo', m)) === 0) {
            break;
          }
        }

        // The reset run looks for the earlier submit on its own queue: it never waits behind the filler.
        const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
        const result = (await again.result()) as {
          resumed?: unknown[];
          submissions: Array<{ outcome: string; resumed?: unknown }>;
        };
        expect(timedOutInQueue(await events(again))).toBe(false);
        await limitQuotaQueue(ctx.client, ctx.taskQueue, 'text-to-video', 100);
        expect(result.submissions.map((s) => s.outcome)).toEqual(['accepted']);
        expect(result.resumed).toEqual([expect.objectContaining({ runId: handle.firstExecutionRunId })]);
        expect(await paidCalls(emulator, 'submitTextToVideo', marker)).toBe(1);
        await Promise.all(fillers.map((f) => f.result()));
      },
      { env: { RATE_LIMIT_QUOTAS: JSON.stringify({ 'text-to-video': { perMinute: 1 } }) } },
    ));

  it('a submit the platform refused, then one it accepted: the reset run meets the refusal alike and takes the task', () =>
    withWorker('reset-refused', async (ctx) => {
      const marker = uniqueId('paid');
      await emulator.admin('PUT', '/faults', {
        routes: { submitTextToVideo: { errorRate5xx: 1, status5xx: 503, count: 1 } },
      });
      const handle = await ctx.client.workflow.start(WorkflowType.mediaGeneration, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('reset-refused'),
        args: [
          {
            operation: 'text-to-video',
            request: { prompt: `${marker} [emulator:duration=3000]` },
            submission: { backoffInitialMs: 100, backoffMaxMs: 500 },
            polling: FAST,
            keepOutputs: false,
          },
        ],
      });
      const first = (await handle.result()) as { submissions: Array<{ outcome: string }> };
      expect(first.submissions.map((s) => s.outcome)).toEqual(['refused', 'accepted']);
      const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
      const result = (await again.result()) as typeof first & { resumed?: unknown[] };
      expect(result.submissions.map((s) => s.outcome)).toEqual(['refused', 'accepted']);
      expect(result.resumed).toEqual([expect.objectContaining({ runId: handle.firstExecutionRunId })]);
      expect(await paidCalls(emulator, 'submitTextToVideo', marker)).toBe(1);
    }));

  it('a batch job uploads its input once and creates its batch once', () =>
    withWorker('reset-upload', async (ctx) => {
      const marker = uniqueId('paid');
      const uploadsBefore = await arrived(emulator, 'uploadBatchInputFile');
      const handle = await ctx.client.workflow.start(WorkflowType.batchJob, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('reset-upload'),
        args: [
          {
            endpoint: '/v1/chat/completions',
            requests: [
              { custom_id: 'a', body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: 'hi' }] } },
            ],
            polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
            metadata: { marker, emulator_validating_ms: '2000', emulator_per_request_ms: '2000' },
          },
        ],
      });
      await handle.result();
      expect((await arrived(emulator, 'uploadBatchInputFile')) - uploadsBefore).toBe(1);
      const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
      const second = (await again.result()) as { resumed?: unknown[] };
      expect((await arrived(emulator, 'uploadBatchInputFile')) - uploadsBefore).toBe(1);
      expect(second).toMatchObject({ resumed: [expect.objectContaining({ runId: handle.firstExecutionRunId })] });
      expect(await paidCalls(emulator, 'createBatch', marker)).toBe(1);
    }));

  it('a cancel of a reset batch job cancels the batch the earlier run created', () =>
    withWorker('reset-cancel-batch', async (ctx) => {
      const marker = uniqueId('paid');
      const handle = await ctx.client.workflow.start(WorkflowType.batchJob, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('reset-cancel-batch'),
        args: [
          {
            endpoint: '/v1/chat/completions',
            requests: [
              { custom_id: 'a', body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: 'hi' }] } },
            ],
            polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
            // Ten emulated minutes a request: the batch runs on until it is cancelled.
            metadata: { marker, emulator_per_request_ms: '600000' },
          },
        ],
      });
      await waitFor(handle, (all) => !!completedOf(all, 'createBatchOnce'), 'the batch');
      const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
      await waitFor(again, (all) => !!completedOf(all, 'createBatchOnce'), 'the reset run to take the batch');
      await again.cancel();
      await expect(again.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      const { batchId } = await again.query(batchProgressQuery);
      const batch = await emulator.client().getBatch(batchId!);
      expect(['cancelling', 'cancelled']).toContain(String(batch.status).toLowerCase());
      expect(await paidCalls(emulator, 'createBatch', marker)).toBe(1);
    }));

  it('a cancel of a budget-gated run that follows the earlier run’s job cancels that job, and holds the reservation until it has ended', () =>
    withWorker('reset-cancel', async (ctx) => {
      const memberId = await emulator.freshMember(100_000);
      const marker = uniqueId('paid');
      // A job that would run a minute and more: only a cancel ends it within the test.
      const handle = await startBudgetGatedGeneration(
        ctx,
        memberId,
        `${marker} [emulator:duration=900000]`,
        'reset-cancel',
      );
      const jobId = `${handle.workflowId}/mediaGeneration`;
      const job = ctx.client.workflow.getHandle(jobId);
      await waitFor(handle, (all) => all.some((e) => e.childWorkflowExecutionStartedEventAttributes), 'the job');
      await waitFor(job, (all) => !!completedOf(all, 'submitMediaTask'), 'the job’s submit');

      const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
      await waitFor(again, (all) => !!scheduled(all, 'awaitEarlierJob'), 'the reset run to follow the job');
      const ledger = ctx.client.workflow.getHandle(budgetLedgerWorkflowId(memberId));
      expect((await ledger.query(budgetLedgerStateQuery)).outstanding).toBe(6_000);

      await again.cancel();
      const ended = await again.result().catch((err: unknown) => err);
      expect(ended).toBeInstanceOf(WorkflowFailedError);
      expect((ended as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      // The job ended before the reservation was given back, and nothing of it runs on.
      const [jobEnd, runEnd] = await Promise.all([job.describe(), again.describe()]);
      expect(jobEnd.status.name).toBe('CANCELLED');
      expect(jobEnd.closeTime!.getTime()).toBeLessThanOrEqual(runEnd.closeTime!.getTime());
      const release = (await events(again)).find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'releaseMemberBudget',
      );
      expect(Number(release?.eventTime?.seconds) * 1000).toBeGreaterThanOrEqual(
        Math.floor(jobEnd.closeTime!.getTime() / 1000) * 1000,
      );
      expect((await ledger.query(budgetLedgerStateQuery)).outstanding).toBe(0);
      expect(await paidCalls(emulator, 'submitTextToVideo', marker)).toBe(1);
    }));
});
