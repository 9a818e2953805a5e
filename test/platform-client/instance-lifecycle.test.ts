// The instance lifecycle operations (create, list, start, stop, delete), client and emulator together
// over real HTTP: each request checked before it is sent, each answer bounded.
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

describe('instance lifecycle against the emulator', () => {
  let emu: TestEmulator;
  let client: PlatformClient;
  // 50× clock and 10 s steps: each status lasts 200 ms, long enough to be seen on a loaded machine.
  const SLOW_STEPS = { instanceSettings: { lifecycleStepMs: 10_000 } };
  const builtInFixtures = () => emu.admin('POST', '/fixtures', SLOW_STEPS);
  beforeAll(async () => {
    emu = await startTestEmulator({ clockSpeed: 50 });
    client = emu.client();
    await builtInFixtures();
  });
  afterAll(() => emu.close());
  afterEach(builtInFixtures);

  async function statusesUntil(instanceId: string, target: string): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { status } = await client.getInstance({ instanceId });
      if (seen[seen.length - 1] !== status) seen.push(status);
      if (status === target) return seen;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${instanceId} never became ${target} (saw ${seen.join(' → ')})`);
  }

  it('creates a subscription instance that passes through creating to running, with its expiry', async () => {
    const { instanceId } = await client.createInstance({
      name: 'lifecycle box',
      productId: 'gpu-rtx4090-24g',
      gpuNum: 1,
      billingMode: 'subscription',
      months: 1,
    });
    const statuses = await statusesUntil(instanceId, 'running');
    expect(statuses[0]).toMatch(/^(toCreate|creating|pulling)$/);
    const inst = await client.getInstance({ instanceId });
    expect(inst).toMatchObject({ name: 'lifecycle box', billingMode: 'subscription', gpuNum: 1 });
    expect(Number(inst.endTime)).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    const counters = await emu.admin<{ paid: { byRoute: Record<string, Record<string, number>> } }>('GET', '/counters');
    expect(counters.paid.byRoute.createInstance).toEqual({ 'lifecycle box': 1 });
  });

  it('lists every instance page by page, and one member’s only', async () => {
    const all: string[] = [];
    for await (const inst of client.iterateInstances({ limit: 2 })) all.push(inst.id);
    expect(all).toEqual([...all].sort());
    expect(all).toEqual(expect.arrayContaining(['inst-demo-1', 'inst-demo-2', 'inst-payg-1']));
    const first = await client.listInstances({ limit: 2 });
    expect(first).toMatchObject({ has_more: true });
    expect(first.data).toHaveLength(2);

    await emu.admin('POST', '/fixtures', {
      ...SLOW_STEPS,
      instances: [
        { id: 'inst-a', status: 'running', billingMode: 'subscription', expiresInDays: 2, memberId: 'member-broke' },
        { id: 'inst-b', status: 'running', billingMode: 'payAsYouGo', endTime: -1 },
      ],
    });
    const broke = await client.listInstances({ memberId: 'member-broke' });
    expect(broke.data.map((i) => [i.id, i.memberId])).toEqual([['inst-a', 'member-broke']]);
  });

  it('stops a running instance to exited, starts it to running, deletes it to removed', async () => {
    await client.stopInstance({ instanceId: 'inst-demo-2' });
    // A repeat while stopping is answered as done, not refused.
    await client.stopInstance({ instanceId: 'inst-demo-2' });
    expect(await statusesUntil('inst-demo-2', 'exited')).toEqual(expect.arrayContaining(['stopping', 'exited']));
    await client.startInstance({ instanceId: 'inst-demo-2' });
    expect(await statusesUntil('inst-demo-2', 'running')).toEqual(expect.arrayContaining(['starting', 'running']));
    await client.deleteInstance({ instanceId: 'inst-demo-2' });
    expect(await statusesUntil('inst-demo-2', 'removed')).toEqual(expect.arrayContaining(['removing', 'removed']));
  });

  it('refuses an action the status does not allow, and an unknown instance, as the GPU API does (400)', async () => {
    // A start of a running instance is answered as done (a retried start must not fail); of a removed one, refused.
    await client.startInstance({ instanceId: 'inst-demo-1' });
    const refused = await client.startInstance({ instanceId: 'inst-removed-1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ status: 400, reason: 'INSTANCE_STATE_INVALID', retryable: false });
    const missing = await client.stopInstance({ instanceId: 'inst-nope' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 400, reason: 'RESOURCE_NOT_FOUND' });
  });

  it('checks every request before sending it, naming the field and the rule', async () => {
    const before = await emu.admin<{ requests: Record<string, number> }>('GET', '/counters');
    const bad = [
      client.createInstance({ name: '', productId: 'p', gpuNum: 9, billingMode: 'subscription' }),
      client.createInstance({ name: 'x', productId: 'p', gpuNum: 1, billingMode: 'payAsYouGo', months: 2 }),
      client.listInstances({ limit: 1000 }),
      client.stopInstance({ instanceId: 'x'.repeat(256) }),
    ].map((p) => p.catch((e: unknown) => (e as Error).message));
    const [create, payg, list, stop] = await Promise.all(bad);
    expect(create).toContain('name: must not be empty');
    expect(create).toContain('gpuNum: must be at most 8');
    expect(create).toContain('months: is required for a subscription instance');
    expect(payg).toContain('months: is only for a subscription instance');
    expect(list).toContain('limit: must be at most 100');
    expect(stop).toContain('instanceId: must be at most 255 characters long');
    const after = await emu.admin<{ requests: Record<string, number> }>('GET', '/counters');
    expect(after.requests).toEqual(before.requests);
  });
});
