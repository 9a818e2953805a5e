// createInstance, startInstance, stopInstance and deleteInstance end to end: real Temporal dev server,
// real worker, an emulator of this file's own (its faults and instances are this file's alone).
import { FailureType, SearchAttributes, WorkflowType } from '@platform-ops/client';
import type {
  createInstance,
  deleteInstance,
  startInstance,
  stopInstance,
} from '../../src/operations/instances/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import {
  activityAttempts,
  emulatorPlatform,
  recordHistory,
  uniqueId,
  withWorker as withSharedWorker,
} from '../helpers/temporal';

let emulator: TestEmulator;
// 10× clock, 2 s steps: each intermediate status lasts 200 ms.
const FIXTURES = { instanceSettings: { lifecycleStepMs: 2_000 } };
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
  await emulator.admin('POST', '/fixtures', FIXTURES);
});
afterAll(() => emulator.close());
afterEach(async () => {
  await emulator.admin('DELETE', '/faults');
  await emulator.admin('POST', '/fixtures', FIXTURES);
});

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { platform: opts.platform ?? emulatorPlatform(emulator.url) });
const paidCreates = async () =>
  (await emulator.admin<{ paid: { byRoute: Record<string, Record<string, number>> } }>('GET', '/counters')).paid.byRoute
    .createInstance ?? {};
const FAST_POLLS = { pollInitialSeconds: 0.5, pollMaxSeconds: 1 };
const box = (name: string) => ({
  name,
  productId: 'gpu-rtx4090-24g',
  gpuNum: 1,
  billingMode: 'subscription' as const,
  months: 1,
});

describe('createInstance', () => {
  it('creates a subscription instance and waits until it runs', () =>
    withWorker('create', async ({ client, taskQueue }) => {
      const name = uniqueId('box');
      const handle = await client.workflow.start<typeof createInstance>(WorkflowType.createInstance, {
        taskQueue,
        workflowId: uniqueId('create'),
        args: [{ request: box(name), ...FAST_POLLS }],
      });
      const result = await handle.result();
      expect(result).toMatchObject({ finalStatus: 'running', alreadyApplied: false });
      expect(result.statuses[result.statuses.length - 1]).toBe('running');
      const inst = await emulatorPlatform(emulator.url).getInstance({ instanceId: result.instanceId });
      expect(inst).toMatchObject({ name, status: 'running', billingMode: 'subscription' });
      expect((await paidCreates())[name]).toBe(1);
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('DONE');
      await recordHistory(handle, 'createInstance-running');
    }));

  it('does not create (and pay) twice when the first answer was lost after the platform created it', async () => {
    // The first create is answered only after the client gave up on it, but the emulator carries it
    // out: the retry must find the instance by its name and not create a second one.
    await emulator.admin('PUT', '/faults', { routes: { createInstance: { latencyMs: 800, count: 1 } } });
    const name = uniqueId('box-lost');
    await withWorker(
      'create-lost',
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start<typeof createInstance>(WorkflowType.createInstance, {
          taskQueue,
          workflowId: uniqueId('create-lost'),
          args: [{ request: box(name), ...FAST_POLLS }],
        });
        const result = await handle.result();
        expect(result).toMatchObject({ finalStatus: 'running', alreadyApplied: true });
        expect((await activityAttempts(handle))[0]).toBe(2);
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 300 }) },
    );
    expect((await paidCreates())[name]).toBe(1);
  });

  it('refuses a name a live instance already has, creating nothing', () =>
    withWorker('create-taken', async ({ client, taskQueue }) => {
      const before = await paidCreates();
      const handle = await client.workflow.start<typeof createInstance>(WorkflowType.createInstance, {
        taskQueue,
        workflowId: uniqueId('create-taken'),
        args: [{ request: box('demo training box') }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.PlatformRejected);
      expect(failure.message).toContain('An instance named "demo training box" already exists (inst-demo-1');
      expect(await paidCreates()).toEqual(before);
    }));
});

describe('stopInstance, startInstance, deleteInstance', () => {
  it('stops a running instance until exited, starts it until running, deletes it until removed', () =>
    withWorker('lifecycle', async ({ client, taskQueue }) => {
      const args = [{ instanceId: 'inst-demo-2', ...FAST_POLLS }] as const;
      const stop = await client.workflow.start<typeof stopInstance>(WorkflowType.stopInstance, {
        taskQueue,
        workflowId: uniqueId('stop'),
        args: [...args],
      });
      const stopped = await stop.result();
      expect(stopped).toMatchObject({ instanceId: 'inst-demo-2', finalStatus: 'exited' });
      await recordHistory(stop, 'stopInstance-exited');

      const start = await client.workflow.start<typeof startInstance>(WorkflowType.startInstance, {
        taskQueue,
        workflowId: uniqueId('start'),
        args: [...args],
      });
      expect((await start.result()).finalStatus).toBe('running');
      await recordHistory(start, 'startInstance-running');

      const del = await client.workflow.start<typeof deleteInstance>(WorkflowType.deleteInstance, {
        taskQueue,
        workflowId: uniqueId('delete'),
        args: [...args],
      });
      expect((await del.result()).finalStatus).toBe('removed');
      await recordHistory(del, 'deleteInstance-removed');
    }));

  it('rides out a 5xx burst on the request, and fails at once on a status that does not allow it', () =>
    withWorker('lifecycle-faults', async ({ client, taskQueue }) => {
      await emulator.admin('PUT', '/faults', {
        routes: { stopInstance: { errorRate5xx: 1, status5xx: 503, count: 2 } },
      });
      const stop = await client.workflow.start<typeof stopInstance>(WorkflowType.stopInstance, {
        taskQueue,
        workflowId: uniqueId('stop-5xx'),
        args: [{ instanceId: 'inst-demo-1', ...FAST_POLLS }],
      });
      expect((await stop.result()).finalStatus).toBe('exited');
      expect((await activityAttempts(stop))[0]).toBe(3);

      const start = await client.workflow.start<typeof startInstance>(WorkflowType.startInstance, {
        taskQueue,
        workflowId: uniqueId('start-removed'),
        args: [{ instanceId: 'inst-removed-1' }],
      });
      const failure = await failureOf(start.result());
      expect(failure.type).toBe(FailureType.PlatformRejected);
      expect(failure.message).toContain('inst-removed-1 is removed');
    }));

  it('fails as DeadlineExceeded, naming the statuses seen, when the target never comes', async () => {
    await emulator.admin('POST', '/fixtures', { instanceSettings: { lifecycleStepMs: 3_600_000 } });
    await withWorker('stop-slow', async ({ client, taskQueue }) => {
      const stop = await client.workflow.start<typeof stopInstance>(WorkflowType.stopInstance, {
        taskQueue,
        workflowId: uniqueId('stop-slow'),
        args: [{ instanceId: 'inst-demo-1', timeoutSeconds: 10, ...FAST_POLLS }],
      });
      const failure = await failureOf(stop.result());
      expect(failure.type).toBe(FailureType.DeadlineExceeded);
      expect(failure.message).toContain('was not exited 10s after the stop (statuses seen: toStop)');
    });
  });
});
