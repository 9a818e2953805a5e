// serverlessEndpoint end to end: real Temporal dev server, real worker, an emulator of this file's own. A deploy
// serves, scales and is removed; a deploy that cannot serve leaves nothing billing; a failed update rolls back;
// changes never interleave.
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import {
  deployEndpointUpdate,
  endpointStateQuery,
  removeEndpointUpdate,
  scaleEndpointUpdate,
  serverlessEndpointWorkflowId,
  WorkflowType,
} from '@platform-ops/client';
import { deploy, emulated, endpointConfig, failureOf, FAST, refusal, waitUntil } from '../helpers/endpoints';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, recordHistory, uniqueId, withWorker as withSharedWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());
afterEach(() => emulator.admin('DELETE', '/faults'));

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { platform: opts.platform ?? emulatorPlatform(emulator.url) });

/** Serving its first config again (image hello-gpu:1), the failed deploy said to be rolled back. */
async function expectRolledBack(handle: WorkflowHandle, endpointId: string): Promise<void> {
  expect(await handle.query(endpointStateQuery)).toMatchObject({
    status: 'SERVING',
    lastChange: { kind: 'deploy', outcome: 'rolledBack' },
  });
  const { endpoint } = await emulatorPlatform(emulator.url).getEndpoint({ id: endpointId });
  expect((endpoint as { image?: { image?: string } }).image?.image).toBe('registry.example/hello-gpu:1');
}

describe('serverlessEndpoint', () => {
  it('deploys until it serves, scales up and to zero, and removes it: workers bill only while they ran', () =>
    withWorker('endpoint', async ({ client, taskQueue }) => {
      const name = uniqueId('ep');
      const deployed = await deploy(client, taskQueue, { config: endpointConfig(name) });
      expect(deployed).toMatchObject({ kind: 'deploy', platformState: 'serving', alreadyApplied: false });
      expect(deployed.workers.healthy).toBeGreaterThanOrEqual(1);
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      expect(await handle.query(endpointStateQuery)).toMatchObject({ status: 'SERVING', minWorkers: 1, maxWorkers: 2 });

      const up = await handle.executeUpdate(scaleEndpointUpdate, { args: [{ minWorkers: 2, maxWorkers: 3 }] });
      expect(up.workers.healthy).toBeGreaterThanOrEqual(2);
      const zero = await handle.executeUpdate(scaleEndpointUpdate, { args: [{ minWorkers: 0, maxWorkers: 1 }] });
      expect(zero).toMatchObject({ kind: 'scale', platformState: 'serving' });
      const [running] = await emulated(emulator, name);
      expect(running.billedWorkerSeconds).toBeGreaterThan(0);

      const removed = await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
      expect(removed).toMatchObject({ kind: 'remove', alreadyApplied: false });
      const view = await handle.result();
      expect(view).toMatchObject({ status: 'REMOVED', changesApplied: 4 });
      expect(view.costSoFar).toBeGreaterThan(0);
      const after = await emulated(emulator, name);
      expect(after.every((e) => e.billingNow === 0)).toBe(true);
      await expect(emulatorPlatform(emulator.url).getEndpoint({ id: deployed.endpointId! })).rejects.toMatchObject({
        status: 404,
      });
      await recordHistory(handle, 'serverlessEndpoint-lifecycle');
    }));

  it('fails a deploy whose image cannot be pulled with that reason, and leaves no worker billing', () =>
    withWorker('endpoint-pull', async ({ client, taskQueue }) => {
      const name = uniqueId('ep-pull');
      const image = { image: 'registry.example/missing:1 [emulator:pull_fail]' };
      const message = await refusal(deploy(client, taskQueue, { config: endpointConfig(name, { image }) }));
      expect(message).toMatch(/ImagePullFailed/);
      expect(message).toContain('the endpoint was removed, so no worker bills');
      const seen = await emulated(emulator, name);
      expect(seen.reduce((sum, e) => sum + e.billedWorkerSeconds, 0)).toBe(0);
      expect(seen.every((e) => e.billingNow === 0)).toBe(true);
      const view = await client.workflow.getHandle(serverlessEndpointWorkflowId(name)).query(endpointStateQuery);
      expect(view).toMatchObject({ status: 'FAILED', lastChange: { kind: 'deploy', outcome: 'failed' } });
    }));

  it('takes a failed update back to the last config that served, and says so', () =>
    withWorker('endpoint-rollback', async ({ client, taskQueue }) => {
      const name = uniqueId('ep-back');
      const first = await deploy(client, taskQueue, { config: endpointConfig(name) });
      const bad = endpointConfig(name, { image: { image: 'registry.example/hello-gpu:2 [emulator:pull_fail]' } });
      const message = await refusal(deploy(client, taskQueue, { config: bad }));
      expect(message).toContain('rolled back to the last config that served');
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      await expectRolledBack(handle, first.endpointId!);
      await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
    }));

  it(
    'fails an update whose workers never turn healthy within its bound, rolled back, showing them while it waits',
    () =>
      withWorker('endpoint-unhealthy', async ({ client, taskQueue }) => {
        const name = uniqueId('ep-sick');
        // A serve timeout well past the bound: the deploy ends by the bound, not by the timeout.
        const timings = { ...FAST, serveTimeoutSeconds: 600 };
        const first = await deploy(client, taskQueue, { config: endpointConfig(name) }, name, timings);
        const sick = endpointConfig(name, {
          image: { image: 'registry.example/hello-gpu:3 [emulator:never_healthy]' },
        });
        const began = Date.now();
        const failing = failureOf(
          deploy(client, taskQueue, { config: sick, unhealthyTimeoutSeconds: 30 }, name, timings),
        );
        const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
        // While it waits, what bills is shown: the endpoint, its new workers running and not healthy.
        await waitUntil(async () => {
          const v = await handle.query(endpointStateQuery);
          return v.status === 'WAITING_TO_SERVE' && v.workers.running > v.workers.healthy;
        }, 45_000);
        const waiting = await handle.query(endpointStateQuery);
        expect(waiting.endpointId).toBe(first.endpointId);
        // The Web UI's current details say the same.
        const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
        expect(currentDetails).toContain('**WAITING_TO_SERVE**');
        expect(currentDetails).toContain(`- endpointId: ${first.endpointId}`);
        expect(currentDetails).toMatch(/- running: [1-9]/);
        expect(currentDetails).toMatch(/- costSoFar: \d+/);
        const failure = await failing;
        expect(failure.type).toBe('EndpointUnhealthy');
        expect(failure.message).toMatch(
          new RegExp(
            `^deploy of endpoint ${name} failed: workers ran without turning healthy for 30s: the platform ` +
              'shows the endpoint \\w+, \\d+ running, \\d+ healthy.*; rolled back to the last config that served$',
          ),
        );
        // The bound plus at most one report's interval, and the rollback.
        expect(Date.now() - began).toBeLessThan(100_000);
        await expectRolledBack(handle, first.endpointId!);
        await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
        await handle.result();
        await recordHistory(handle, 'serverlessEndpoint-unhealthy-rollback');
      }),
    180_000,
  );

  it('applies two deploys sent at once one after the other, and refuses one that says whenBusy: refuse', () =>
    withWorker('endpoint-turns', async ({ client, taskQueue }) => {
      const name = uniqueId('ep-turns');
      const slow = { image: 'registry.example/hello-gpu:1 [emulator:pull_ms=8000]' };
      const a = deploy(client, taskQueue, { config: endpointConfig(name, { image: slow }) });
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      await waitUntil(
        async () => (await handle.query(endpointStateQuery).catch(() => undefined))?.status === 'WAITING_TO_SERVE',
      );
      const second = endpointConfig(name, { image: { image: 'registry.example/hello-gpu:2' } });
      const refused = await refusal(
        handle.executeUpdate(deployEndpointUpdate, { args: [{ config: second, whenBusy: 'refuse' }] }),
      );
      expect(refused).toContain('is applying another change');
      const b = handle.executeUpdate(deployEndpointUpdate, { args: [{ config: second }] });
      const [ra, rb] = await Promise.all([a, b]);
      expect([ra.kind, rb.kind]).toEqual(['deploy', 'deploy']);
      // Never interleaved: the second's update is sent only after the first's wait has ended.
      const events = (await handle.fetchHistory()).events ?? [];
      const order = events
        .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
        .filter((t): t is string => !!t && /Endpoint$/.test(t) && t !== 'checkEndpointConfig');
      expect(order).toEqual(['findEndpoint', 'createEndpoint', 'pollEndpoint', 'updateEndpoint', 'pollEndpoint']);
      const { endpoint } = await emulatorPlatform(emulator.url).getEndpoint({ id: ra.endpointId! });
      expect((endpoint as { image?: { image?: string } }).image?.image).toBe('registry.example/hello-gpu:2');
      await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
    }));

  it('continues as new before its history grows large, carrying its endpoint, config and totals over', () =>
    withWorker('endpoint-can', async ({ client, taskQueue }) => {
      const name = uniqueId('ep-can');
      const startWorkflowOperation = new WithStartWorkflowOperation(WorkflowType.serverlessEndpoint, {
        workflowId: serverlessEndpointWorkflowId(name),
        taskQueue,
        args: [{ name, pollSeconds: 1, continueAsNewAfterEvents: 100 }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      const first = await client.workflow.executeUpdateWithStart(deployEndpointUpdate, {
        args: [{ config: endpointConfig(name) }],
        startWorkflowOperation,
      });
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      const firstRun = (await handle.describe()).runId;
      for (const [min, max] of [
        [2, 3],
        [1, 2],
        [2, 2],
        [1, 3],
        [2, 3],
        [1, 2],
      ]) {
        await handle.executeUpdate(scaleEndpointUpdate, { args: [{ minWorkers: min, maxWorkers: max }] });
      }
      const now = await handle.describe();
      expect(now.runId).not.toBe(firstRun);
      const view = await handle.query(endpointStateQuery);
      expect(view).toMatchObject({ status: 'SERVING', endpointId: first.endpointId, changesApplied: 7, minWorkers: 1 });
      expect(view.workerSeconds).toBeGreaterThan(0);
      await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
      expect((await handle.result()).status).toBe('REMOVED');
    }));
});
