// serverlessEndpoint's money and input: one endpoint created through a lost answer and through a Reset while its
// create may be in flight; a bad config refused before any call, naming its field; a budget-gated deploy.
import {
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  deployEndpointUpdate,
  endpointStateQuery,
  removeEndpointUpdate,
  serverlessEndpointWorkflowId,
} from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { deploy, emulated, endpointConfig, refusal, waitUntil } from '../helpers/endpoints';
import { arrived, events, paidCalls, reset, resetPoint } from '../helpers/resets';
import { emulatorPlatform, uniqueId, withWorker as withSharedWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());
afterEach(() => emulator.admin('DELETE', '/faults'));

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { platform: opts.platform ?? emulatorPlatform(emulator.url) });

const liveNamed = async (name: string) =>
  (await emulated(emulator, name)).filter((e) => !['gone', 'terminating'].includes(e.state)).length;

describe('serverlessEndpoint: one endpoint per name, whatever is retried', () => {
  it('finds the endpoint a create made when its answer was lost, and creates no second one', async () => {
    await emulator.admin('PUT', '/faults', { routes: { createEndpoint: { latencyMs: 800, count: 1 } } });
    const name = uniqueId('ep-lost');
    await withWorker(
      'endpoint-lost',
      async ({ client, taskQueue }) => {
        const result = await deploy(client, taskQueue, { config: endpointConfig(name) });
        expect(result).toMatchObject({ platformState: 'serving', alreadyApplied: true });
        await client.workflow
          .getHandle(serverlessEndpointWorkflowId(name))
          .executeUpdate(removeEndpointUpdate, { args: [{}] });
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 300 }) },
    );
    expect(await paidCalls(emulator, 'createEndpoint', name)).toBe(1);
  });

  it('a Reset during provisioning creates nothing more: the next deploy adopts the endpoint by name', () =>
    withWorker('endpoint-reset', async (ctx) => {
      const { client, taskQueue } = ctx;
      const name = uniqueId('ep-reset');
      const slow = { image: 'registry.example/hello-gpu:1 [emulator:pull_ms=20000]' };
      const first = deploy(client, taskQueue, { config: endpointConfig(name, { image: slow }) }).catch(
        (e: unknown) => e,
      );
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      await waitUntil(
        async () => (await handle.query(endpointStateQuery).catch(() => undefined))?.status === 'WAITING_TO_SERVE',
      );
      const all = await events(handle);
      const after = await reset(client, handle, resetPoint(all, 'first task', 'createEndpoint'));
      await first;
      const again = await after.executeUpdate(deployEndpointUpdate, { args: [{ config: endpointConfig(name) }] });
      expect(again.platformState).toBe('serving');
      expect(await paidCalls(emulator, 'createEndpoint', name)).toBe(1);
      expect(await liveNamed(name)).toBe(1);
      await after.executeUpdate(removeEndpointUpdate, { args: [{}] });
    }));
});

describe('serverlessEndpoint: a bad config is refused before anything is sent', () => {
  const cases: [string, Parameters<typeof endpointConfig>[1], RegExp][] = [
    [
      'minimum above maximum',
      { workerConfig: { minNum: 3, maxNum: 2, freeTimeout: 1, maxConcurrent: 1, gpuNum: 1, requestTimeout: 1 } },
      /workerConfig\.minNum.*at most workerConfig\.maxNum/,
    ],
    ['a reserved port', { ports: [{ port: 2222 }] }, /ports\[0\]\.port: must not be 2222/],
    ['a product that does not exist', { products: [{ id: 'gpu-nope' }] }, /products\.0\.id must name a serverless/],
    ['an instance product', { products: [{ id: 'gpu-rtx4090-24g' }] }, /products\.0\.id must name a serverless/],
    ['a disk outside the limit ranges', { rootfsSize: 5_000 }, /rootfsSize must be at most \d+ \(limit RootfsSize\)/],
    ['a name the platform refuses', { name: 'bad name!' }, /name/],
  ];
  it.each(cases)('%s', (_what, over, rule) =>
    withWorker('endpoint-bad', async ({ client, taskQueue }) => {
      const name = uniqueId('ep-bad');
      const before = await arrived(emulator, 'createEndpoint');
      const message = await refusal(deploy(client, taskQueue, { config: endpointConfig(name, over) }, name));
      expect(message).toMatch(rule);
      expect(await arrived(emulator, 'createEndpoint')).toBe(before);
    }),
  );
});

describe('serverlessEndpoint: a budget-gated deploy', () => {
  it("refuses a deploy the member's budget cannot cover, sending nothing; holds it until the remove", () =>
    withWorker('endpoint-budget', async ({ client, taskQueue }) => {
      const poor = await emulator.freshMember(10);
      const name = uniqueId('ep-budget');
      const before = await arrived(emulator, 'createEndpoint');
      const message = await refusal(
        deploy(client, taskQueue, { config: endpointConfig(name), budget: { memberId: poor, hours: 24 } }),
      );
      expect(message).toMatch(/budget: member .* cannot cover .*nothing was sent/);
      expect(await arrived(emulator, 'createEndpoint')).toBe(before);

      const rich = await emulator.freshMember(100_000_000);
      const result = await deploy(client, taskQueue, {
        config: endpointConfig(name),
        budget: { memberId: rich, hours: 2 },
      });
      expect(result.platformState).toBe('serving');
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(rich));
      const held = await ledger.query(budgetLedgerStateQuery);
      expect(held.reservations.map((r) => r.holderWorkflowId)).toEqual([serverlessEndpointWorkflowId(name)]);
      const handle = client.workflow.getHandle(serverlessEndpointWorkflowId(name));
      await handle.executeUpdate(removeEndpointUpdate, { args: [{}] });
      expect((await ledger.query(budgetLedgerStateQuery)).reservations).toEqual([]);
    }));
});
