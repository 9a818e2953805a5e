// Serverless endpoints over real HTTP, on a frozen clock so each phase is exact: create → serving with its minimum
// of healthy workers, a rolling update, delete → terminating → 404; billing only while workers run; the markers;
// refusals naming the field.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- answers are untyped JSON */
import type { EndpointAdminView } from '../src/serverless-endpoints';
import { emulatorForFile } from './support';

const BASE = '/gpu-instance/openapi/v1';
const emu = emulatorForFile();

const config = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  workerConfig: { minNum: 2, maxNum: 3, freeTimeout: 300, maxConcurrent: 1, gpuNum: 1, requestTimeout: 300 },
  ports: [{ port: 8080 }],
  policy: { type: 'queue', value: 60 },
  image: { image: 'registry.example/app:1' },
  products: [{ id: 'gpu-l40s-48g' }],
  rootfsSize: 100,
  healthy: { path: '/health' },
  ...over,
});

const create = async (body: unknown) => emu.call('POST', `${BASE}/endpoint/create`, { json: { endpoint: body } });
const get = async (id: string) => emu.call('GET', `${BASE}/endpoint`, { query: { id } });
const billed = async (id: string) =>
  ((await emu.admin('GET', '/endpoints')).endpoints as EndpointAdminView[]).find((e) => e.id === id)!;

beforeEach(() => emu.freeze());

describe('serverless endpoints', () => {
  it('comes up, serves with its minimum of healthy workers, rolls an update, and is deleted', async () => {
    const spent = async () =>
      ((await emu.admin('GET', '/members')).members as { id: string; spent: number }[]).find(
        (m) => m.id === 'member-demo',
      )!.spent;
    const spentBefore = await spent();
    const made = await create(config('ep-life'));
    expect(made.status).toBe(200);
    const { id } = made.json;
    expect((await get(id)).json.endpoint).toMatchObject({
      name: 'ep-life',
      state: { state: 'initializing' },
      workers: [{ state: { state: 'pulling' } }, { state: { state: 'pulling' } }],
    });
    await emu.advance(4_000);
    const serving = (await get(id)).json.endpoint;
    expect(serving.state.state).toBe('serving');
    expect(serving.workers.map((w: { healthy: boolean }) => w.healthy)).toEqual([true, true]);
    // Read leniently by clients: the live platform sends these as strings.
    expect(serving.workerConfig).toMatchObject({ freeTimeout: '300', maxConcurrent: '1' });
    expect(serving.ports).toEqual([{ port: '8080' }]);
    expect((await billed(id)).billingNow).toBe(2);

    const update = { id, ...config('ep-life', { image: { image: 'registry.example/app:2' } }) };
    update.workerConfig = { ...update.workerConfig, minNum: 1 };
    expect((await emu.call('POST', `${BASE}/endpoint/update`, { json: update })).status).toBe(200);
    const rolling = (await get(id)).json.endpoint;
    expect(rolling.state.state).toBe('updating');
    expect(rolling.workers).toHaveLength(3); // old ones serve until the new one runs
    await emu.advance(4_000);
    expect((await get(id)).json.endpoint).toMatchObject({ state: { state: 'serving' }, workers: [{ healthy: true }] });

    const listed = await emu.call('GET', `${BASE}/endpoints`, { query: { pageSize: 10, pageNum: 1 } });
    expect(listed.json.endpoints.map((e: { id: string }) => e.id)).toContain(id);
    expect((await emu.call('POST', `${BASE}/endpoint/delete`, { json: { name: id } })).status).toBe(200);
    expect((await get(id)).json.endpoint.state.state).toBe('terminating');
    expect((await emu.call('POST', `${BASE}/endpoint/delete`, { json: { name: id } })).status).toBe(400);
    await emu.advance(2_000);
    expect((await get(id)).status).toBe(404);
    const after = await billed(id);
    expect(after).toMatchObject({ state: 'gone', billingNow: 0 });
    // Billed from the end of each pull until the stop: 2 old workers × 6 s (until the new one ran), the new one × 2 s.
    expect(after.billedWorkerSeconds).toBe(14);
    expect(after.cost).toBeGreaterThan(0);
    // The member's budget is charged what the workers ran (whole 1/10000 USD as they accrue).
    expect(after.cost - ((await spent()) - spentBefore)).toBeLessThanOrEqual(1);
  });

  it('fails an endpoint whose image cannot be pulled, with that reason, and bills nothing', async () => {
    const { id } = (await create(config('ep-pull', { image: { image: 'x:1 [emulator:pull_fail]' } }))).json;
    await emu.advance(5_000);
    expect((await get(id)).json.endpoint.state).toMatchObject({ state: 'failed', error: 'ImagePullFailed' });
    expect(await billed(id)).toMatchObject({ billedWorkerSeconds: 0, billingNow: 0 });
  });

  it('keeps workers that never turn healthy initializing (and billing)', async () => {
    const { id } = (await create(config('ep-sick', { image: { image: 'x:1 [emulator:never_healthy]' } }))).json;
    await emu.advance(10_000);
    expect((await get(id)).json.endpoint.state.state).toBe('initializing');
    expect((await billed(id)).billingNow).toBe(2);
  });

  it('refuses, naming the field: the limit ranges, a non-serverless product, a taken name, a fixed field', async () => {
    const disk = await create(config('ep-disk', { rootfsSize: 200 }));
    expect(disk.status).toBe(400);
    expect(disk.json.message).toContain('rootfsSize must be at most 100');
    const product = await create(config('ep-prod', { products: [{ id: 'gpu-rtx4090-24g' }] }));
    expect(product.json.message).toContain('products.0.id');
    const { id } = (await create(config('ep-taken'))).json;
    expect((await create(config('ep-taken'))).json.message).toContain('an endpoint named "ep-taken" already exists');
    const moved = await emu.call('POST', `${BASE}/endpoint/update`, {
      json: { id, ...config('ep-taken', { products: [{ id: 'gpu-a10-24g-sl' }] }) },
    });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toContain('products');
  });

  it('counts a create as paid, under its name', async () => {
    await create(config('ep-paid'));
    const { paid } = await emu.admin('GET', '/counters');
    expect(paid.byRoute.createEndpoint['ep-paid']).toBe(1);
  });
});
