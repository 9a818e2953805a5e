// A Reset (the Web UI's button, `temporal workflow reset`) never pays the platform twice: for each
// paid workflow type, reset to the first workflow task, to the task after the paid call, to the last
// task, while the paid call is still in flight, and by query, counted with the emulator's paid calls
// on an emulator of this file's own (faults are global per route).
import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { WorkflowType } from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import {
  emulatorPlatform,
  uniqueId,
  withWorker as withSharedWorker,
  type TemporalTestContext,
} from '../helpers/temporal';
import {
  arrived as countArrived,
  completedOf,
  events,
  limitQuotaQueue,
  paidCalls as countPaid,
  type Point,
  reset,
  resetPoint,
  startBudgetGatedGeneration,
  waitFor,
} from '../helpers/resets';
import { testEnv } from '../setup/shared';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());
afterEach(() => emulator.admin('DELETE', '/faults'));

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { ...opts, platform: opts.platform ?? emulatorPlatform(emulator.url) });

const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };

const paidCalls = (route: string, marker: string) => countPaid(emulator, route, marker);
const arrived = (route: string) => countArrived(emulator, route);

interface Case {
  type: string;
  /** The paid activity, and the emulator route key it pays through. */
  paid: { activity: string; route: string };
  /** Starts the workflow; `marker` goes into the paid call's subject. */
  start(ctx: TemporalTestContext, marker: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** The paid call's subject, when it is not the marker (a renewal's is its instance). */
  subject?: string;
}

const media: Case = {
  type: 'mediaGeneration',
  paid: { activity: 'submitMediaTask', route: 'submitTextToVideo' },
  start: (ctx, marker) =>
    ctx.client.workflow.start(WorkflowType.mediaGeneration, {
      taskQueue: ctx.taskQueue,
      workflowId: uniqueId('reset-media'),
      args: [
        {
          operation: 'text-to-video',
          request: { prompt: `${marker} [emulator:duration=3000]` },
          polling: FAST,
          keepOutputs: false,
        },
      ],
    }),
};

const decision: Case = {
  type: 'evaluateDecision',
  paid: { activity: 'evaluateQuestion', route: 'decisionEvaluation' },
  start: (ctx, marker) =>
    ctx.client.workflow.start(WorkflowType.evaluateDecision, {
      taskQueue: ctx.taskQueue,
      workflowId: uniqueId('reset-decision'),
      args: [{ state: `a photo ${marker}`, questions: [{ kind: 'yes_no', question: 'Is it safe?' }] }],
    }),
};

const batch: Case = {
  type: 'batchJob',
  paid: { activity: 'createBatchOnce', route: 'createBatch' },
  start: (ctx, marker) =>
    ctx.client.workflow.start(WorkflowType.batchJob, {
      taskQueue: ctx.taskQueue,
      workflowId: uniqueId('reset-batch'),
      args: [
        {
          endpoint: '/v1/chat/completions',
          requests: [
            { custom_id: 'a', body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: 'hi' }] } },
          ],
          polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
          // Emulated ms: each phase of the batch takes a few hundred real ms.
          metadata: {
            marker,
            emulator_validating_ms: '2000',
            emulator_per_request_ms: '2000',
            emulator_finalizing_ms: '1000',
          },
        },
      ],
    }),
};

const renew: Case = {
  type: 'renewInstance',
  paid: { activity: 'renewInstance', route: 'renewInstance' },
  subject: 'inst-demo-1',
  start: (ctx) =>
    ctx.client.workflow.start(WorkflowType.renewInstance, {
      taskQueue: ctx.taskQueue,
      workflowId: uniqueId('reset-renew'),
      args: [{ instanceId: 'inst-demo-1', months: 1 }],
    }),
};

const create: Case = {
  type: 'createInstance',
  paid: { activity: 'createInstance', route: 'createInstance' },
  start: (ctx, marker) =>
    ctx.client.workflow.start(WorkflowType.createInstance, {
      taskQueue: ctx.taskQueue,
      workflowId: uniqueId('reset-create'),
      args: [
        {
          request: { name: marker, productId: 'gpu-rtx4090-24g', gpuNum: 1, billingMode: 'subscription', months: 1 },
          pollInitialSeconds: 0.5,
          pollMaxSeconds: 1,
        },
      ],
    }),
};

const CASES = [media, decision, batch, renew, create];
const POINTS: Point[] = ['first task', 'task after the paid call', 'last task'];

describe('a reset pays the platform once', () => {
  describe.each(CASES)('$type', (c) => {
    it.each(POINTS)('reset to the %s', (point) =>
      withWorker(`reset-${c.type}`, async (ctx) => {
        const marker = uniqueId('paid');
        const before = await paidCalls(c.paid.route, c.subject ?? marker);
        const handle = await c.start(ctx, marker);
        await handle.result();
        const target = resetPoint(await events(handle), point, c.paid.activity);
        const again = await reset(ctx.client, handle, target);
        const result = (await again.result()) as { resumed?: unknown[] };
        expect((await paidCalls(c.paid.route, c.subject ?? marker)) - before).toBe(1);
        if (point === 'first task') {
          expect(result.resumed).toEqual([expect.objectContaining({ runId: handle.firstExecutionRunId })]);
        }
      }),
    );

    it('reset while the paid call is in flight', () =>
      withWorker(`reset-inflight-${c.type}`, async (ctx) => {
        const marker = uniqueId('paid');
        const before = await paidCalls(c.paid.route, c.subject ?? marker);
        // The platform answers the paid call 3 s late: the reset lands while it is on its way.
        await emulator.admin('PUT', '/faults', { routes: { [c.paid.route]: { latencyMs: 3_000, count: 1 } } });
        const sent = await arrived(c.paid.route);
        const handle = await c.start(ctx, marker);
        // Reset once the paid request is at the platform, its answer 3 s away.
        for (let i = 0; (await arrived(c.paid.route)) === sent; i++) {
          if (i > 300) throw new Error('the paid request never reached the platform');
          await new Promise((r) => setTimeout(r, 20));
        }
        const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
        const result = (await again.result()) as { resumed?: unknown[] };
        // Past the earlier request's latency: a call carried out late counts too.
        await new Promise((r) => setTimeout(r, 3_500));
        expect((await paidCalls(c.paid.route, c.subject ?? marker)) - before).toBe(1);
        expect(result.resumed).toEqual([expect.objectContaining({ runId: handle.firstExecutionRunId })]);
      }));
  });

  it('a submit still waiting for its turn on the quota when the run is reset is sent by the new run, once', () =>
    withWorker(
      'reset-queued',
      async (ctx) => {
        // An operator's limit holds the quota queue (the workers leave it alone). Its burst lets a few submits
        // through first, how many depends on the state of the server's token bucket: generations are started one at
        // a time until one's submit stays scheduled in the queue, unsent.
        const limit = (requestsPerSecond: number) =>
          limitQuotaQueue(ctx.client, ctx.taskQueue, 'text-to-video', requestsPerSecond);
        await limit(0.0001);
        type Handle = Awaited<ReturnType<typeof media.start>>;
        const SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
        const submitState = async (h: Handle) =>
          (await h.describe()).raw.pendingActivities?.find((a) => a.activityType?.name === 'submitMediaTask')?.state;
        /** Its submit is scheduled, and still scheduled and unsent a while later: the limit holds it. */
        const heldInQueue = async (h: Handle, id: string): Promise<boolean> => {
          for (let i = 0; (await submitState(h)) !== SCHEDULED; i++) {
            if (i > 100 || (await paidCalls('submitTextToVideo', id)) > 0) return false;
            await new Promise((r) => setTimeout(r, 50));
          }
          await new Promise((r) => setTimeout(r, 2_000));
          return (await submitState(h)) === SCHEDULED && (await paidCalls('submitTextToVideo', id)) === 0;
        };
        const fillers: Handle[] = [];
        let marker = uniqueId('paid');
        let handle = await media.start(ctx, marker);
        while (!(await heldInQueue(handle, marker))) {
          if (fillers.length >= 6) throw new Error('the submit never waited in its queue: the limit let it through');
          fillers.push(handle);
          marker = uniqueId('paid');
          handle = await media.start(ctx, marker);
        }
        const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
        await limit(100);
        // Never sent, so nothing to resume: the new run sends it, and it is paid once.
        const result = (await again.result()) as { resumed?: unknown[]; submissions: Array<{ outcome: string }> };
        expect(result.resumed ?? []).toEqual([]);
        expect(result.submissions.map((s) => s.outcome)).toEqual(['accepted']);
        expect(await paidCalls('submitTextToVideo', marker)).toBe(1);
        await Promise.all(fillers.map((f) => f.result()));
      },
      { env: { RATE_LIMIT_QUOTAS: JSON.stringify({ 'text-to-video': { perMinute: 1 } }) } },
    ));

  it('budgetGatedJob reset while its job runs: waits for that job, and pays its submit once', () =>
    withWorker('reset-budget', async (ctx) => {
      const memberId = await emulator.freshMember(100_000);
      const marker = uniqueId('paid');
      const handle = await startBudgetGatedGeneration(
        ctx,
        memberId,
        `${marker} [emulator:duration=20000]`,
        'reset-budget',
      );
      await waitFor(handle, (all) => all.some((e) => e.childWorkflowExecutionStartedEventAttributes), 'the job');
      const again = await reset(ctx.client, handle, resetPoint(await events(handle), 'first task', ''));
      const result = (await again.result()) as { outcome: string; resumed?: unknown[]; released: boolean };
      expect(result).toMatchObject({ outcome: 'Completed', released: true });
      expect(result.resumed).toEqual([
        expect.objectContaining({ runId: handle.firstExecutionRunId, call: 'executeChild' }),
      ]);
      expect(await paidCalls('submitTextToVideo', marker)).toBe(1);
      expect((await emulator.member(memberId)).spent).toBeGreaterThan(0);
    }));

  it('a reset by query over several running generations pays each once', () =>
    withWorker('reset-query', async (ctx) => {
      const markers = [1, 2, 3].map(() => uniqueId('paid'));
      const handles = await Promise.all(markers.map((m) => media.start(ctx, `${m} [emulator:duration=20000]`)));
      for (const h of handles) await waitFor(h, (all) => !!completedOf(all, 'submitMediaTask'), 'the submit');
      const jobId = randomUUID();
      const namespace = testEnv('temporalNamespace');
      await ctx.client.workflowService.startBatchOperation({
        namespace,
        jobId,
        reason: 'test: reset by query',
        visibilityQuery: `TaskQueue = "${ctx.taskQueue}" AND ExecutionStatus = "Running"`,
        resetOperation: { options: { firstWorkflowTask: {} } },
      });
      for (;;) {
        const { state } = await ctx.client.workflowService.describeBatchOperation({ namespace, jobId });
        if (state !== temporal.api.enums.v1.BatchOperationState.BATCH_OPERATION_STATE_RUNNING) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const [i, h] of handles.entries()) {
        const result = (await ctx.client.workflow.getHandle(h.workflowId).result()) as { resumed?: unknown[] };
        expect(result.resumed).toEqual([expect.objectContaining({ runId: h.firstExecutionRunId })]);
        expect(await paidCalls(media.paid.route, markers[i])).toBe(1);
      }
    }));
});
