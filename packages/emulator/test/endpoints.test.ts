// Serverless endpoints over real HTTP, on a frozen clock so each phase is exact: create → serving with its minimum
// of healthy workers, a rolling update, delete → terminating → 404; billing only while workers run, in the budget
// and the bills; the markers; refusals naming the field; the quota; faults and reset.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- answers are untyped JSON */
import type { EndpointAdminView } from '../src/serverless-endpoints';
import { emulatorForFile } from './support';

const BASE = '/gpu-instance/openapi/v1';
const BILLS = '/openapi/v1/billing/apikey/bill/list';
const DAY_S = 86_400;
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
const workers = (over: Record<string, number>) => ({ ...config('').workerConfig, ...over });

const create = async (body: unknown) => emu.call('POST', `${BASE}/endpoint/create`, { json: { endpoint: body } });
const get = async (id: string) => emu.call('GET', `${BASE}/endpoint`, { query: { id } });
const update = async (body: unknown) => emu.call('POST', `${BASE}/endpoint/update`, { json: body });
const remove = async (id: string) => emu.call('POST', `${BASE}/endpoint/delete`, { json: { name: id } });
const admin = async (id: string) =>
  ((await emu.admin('GET', '/endpoints')).endpoints as EndpointAdminView[]).find((e) => e.id === id)!;
const spent = async () =>
  ((await emu.admin('GET', '/members')).members as { id: string; spent: number }[]).find((m) => m.id === 'member-demo')!
    .spent;
const states = (endpoint: { workers: { state: { state: string } }[] }) => endpoint.workers.map((w) => w.state.state);

beforeEach(() => emu.freeze());

describe('serverless endpoints', () => {
  it('comes up, serves with its minimum of healthy workers, rolls an update, and is deleted', async () => {
    const made = await create(config('ep-life'));
    expect(made.status).toBe(200);
    const { id } = made.json;
    expect((await get(id)).json.endpoint).toMatchObject({
      id,
      name: 'ep-life',
      appName: id,
      url: `https://${id}.serverless.emulator.local`,
      state: { state: 'initializing' },
    });
    expect(states((await get(id)).json.endpoint)).toEqual(['pulling', 'pulling']);
    await emu.advance(2_000);
    expect(states((await get(id)).json.endpoint)).toEqual(['starting', 'starting']);
    await emu.advance(2_000);
    const serving = (await get(id)).json.endpoint;
    expect(serving.state).toEqual({ state: 'serving', error: '', message: '' });
    expect(serving.workers.map((w: { healthy: boolean }) => w.healthy)).toEqual([true, true]);
    expect(states(serving)).toEqual(['running', 'running']);
    expect((await admin(id)).billingNow).toBe(2);

    // The client reads the endpoint, edits it and sends it back: appName (its id here) comes back unchanged.
    const rolled = { id, ...config('ep-life', { appName: id, image: { image: 'registry.example/app:2' } }) };
    rolled.workerConfig = workers({ minNum: 1 });
    expect((await update(rolled)).status).toBe(200);
    const rolling = (await get(id)).json.endpoint;
    // The old workers serve on until the new one runs healthy, so there are more than the new config's maxNum.
    expect(rolling.state.state).toBe('serving');
    expect(states(rolling)).toEqual(['running', 'running', 'pulling']);
    await emu.advance(4_000);
    const after = (await get(id)).json.endpoint;
    expect(after).toMatchObject({ state: { state: 'serving' }, image: { image: 'registry.example/app:2' } });
    expect(after.workers).toEqual([
      expect.objectContaining({ healthy: true, state: expect.objectContaining({ state: 'running' }) }),
    ]);

    expect((await remove(id)).status).toBe(200);
    expect((await get(id)).json.endpoint.state.state).toBe('terminating');
    expect((await remove(id)).status).toBe(400);
    await emu.advance(2_000);
    expect((await get(id)).status).toBe(404);
    expect((await get(id)).json.reason).toBe('ENDPOINT_NOT_FOUND');
    expect((await remove(id)).status).toBe(400);
    expect((await emu.call('GET', `${BASE}/endpoints`, { query: { pageSize: 10, pageNum: 1 } })).json.total).toBe(0);
    // Billed from the end of each pull until the stop: 2 old workers × 6 s (until the new one ran), the new one × 2 s.
    expect(await admin(id)).toMatchObject({ state: 'gone', billingNow: 0, billedWorkerSeconds: 14 });
  });

  it('lists pages from 1, with the numbers the live platform sends as strings', async () => {
    const ids: string[] = [];
    for (const name of ['ep-a', 'ep-b', 'ep-c']) ids.push((await create(config(name))).json.id);
    const page = async (pageNum: number): Promise<{ endpoints: Record<string, unknown>[]; total: number }> =>
      (await emu.call('GET', `${BASE}/endpoints`, { query: { pageSize: 2, pageNum } })).json as never;
    const first = await page(1);
    expect(first.total).toBe(3);
    expect(first.endpoints.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect((await page(2)).endpoints.map((e) => e.id)).toEqual(ids.slice(2));
    expect((await page(0)).endpoints.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.endpoints[0]).toMatchObject({
      workerConfig: { minNum: 2, maxNum: 3, freeTimeout: '300', maxConcurrent: '1', gpuNum: 1 },
      policy: { type: 'queue', value: '60' },
      ports: [{ port: '8080' }],
      products: [{ id: 'gpu-l40s-48g' }],
      healthy: { path: '/health', failureThreshold: 3 },
      workers: [{ state: { state: 'pulling', error: '', message: '' }, healthy: false, log: '' }, {}],
    });
    const limits = (await emu.call('GET', `${BASE}/endpoint/limit`)).json;
    expect(limits).toMatchObject({ minWorkerNum: 0, maxWorkerNum: 20, minGPUNum: 1, maxGPUNum: 8, maxRootfsSize: 100 });
    expect(limits.cudaVersionList.length).toBeGreaterThan(0);
  });

  it('scales to a new minimum through pull and start, and serves with none at minNum 0', async () => {
    const { id } = (await create(config('ep-scale', { workerConfig: workers({ minNum: 0, maxNum: 2 }) }))).json;
    expect((await get(id)).json.endpoint).toMatchObject({ state: { state: 'serving' }, workers: [] });
    await update({ id, ...config('ep-scale', { workerConfig: workers({ minNum: 2, maxNum: 4 }) }) });
    expect((await get(id)).json.endpoint.state.state).toBe('serving');
    expect(states((await get(id)).json.endpoint)).toEqual(['pulling', 'pulling']);
    await emu.advance(4_000);
    expect(states((await get(id)).json.endpoint)).toEqual(['running', 'running']);
    await update({ id, ...config('ep-renamed', { workerConfig: workers({ minNum: 0, maxNum: 4 }) }) });
    expect((await get(id)).json.endpoint).toMatchObject({ name: 'ep-renamed', workers: [] });
    expect((await admin(id)).billingNow).toBe(0);
  });

  it('bills per worker-second only while workers start or run, to the budget and the bills', async () => {
    const before = await spent();
    const { id } = (await create(config('ep-money', { workerConfig: workers({ minNum: 1, gpuNum: 2 }) }))).json;
    expect(await admin(id)).toMatchObject({ billingNow: 0, billedWorkerSeconds: 0 });
    await emu.advance(2_000); // the pull is over: starting bills
    expect(await admin(id)).toMatchObject({ billingNow: 1, billedWorkerSeconds: 0 });
    await emu.advance(3_600_000);
    // L40S at 8910 per card-hour (postpaid), 2 cards: an hour costs 17820 (1/10000 USD).
    expect(await admin(id)).toMatchObject({ billingNow: 1, billedWorkerSeconds: 3_600, cost: 17_820 });
    expect((await spent()) - before).toBe(17_820);
    expect((await remove(id)).status).toBe(200);
    await emu.advance(600_000);
    expect(await admin(id)).toMatchObject({ billingNow: 0, billedWorkerSeconds: 3_600, cost: 17_820 });

    const now = Math.floor((await emu.admin('GET', '/clock')).now / 1000);
    const bills = (
      await emu.call('GET', BILLS, {
        query: { cycleType: 'Day', startTime: now - DAY_S, endTime: now + 60, category: 'serverless' },
      })
    ).json.bills as Record<string, string>[];
    const sum = (field: string) => bills.reduce((n, b) => n + Number(b[field]), 0);
    expect(sum('amount')).toBe(17_820);
    expect(sum('billNum0')).toBe(3_600); // worker-seconds
    expect(sum('billNum1')).toBe(7_200); // GPU-seconds
    expect(bills[0]).toMatchObject({ productId: 'gpu-l40s-48g', basePrice1: '8910' });
  });

  it('fails an endpoint whose image cannot be pulled, with that reason, and bills nothing', async () => {
    const { id } = (await create(config('ep-pull', { image: { image: 'x:1 [emulator:pull_fail]' } }))).json;
    await emu.advance(5_000);
    const failed = (await get(id)).json.endpoint;
    expect(failed.state).toMatchObject({ state: 'failed', error: 'ImagePullFailed' });
    expect(failed.state.message).toContain('cannot pull image x:1');
    expect(failed.workers[0].state).toMatchObject({ state: 'failed', error: 'ImagePullFailed' });
    expect(await admin(id)).toMatchObject({ billedWorkerSeconds: 0, billingNow: 0, cost: 0 });
  });

  it('keeps never-healthy workers initializing, billing; takes phase lengths from markers and settings', async () => {
    const { id } = (await create(config('ep-sick', { image: { image: 'x:1 [emulator:never_healthy]' } }))).json;
    await emu.advance(10_000);
    expect((await get(id)).json.endpoint.state.state).toBe('initializing');
    expect(await admin(id)).toMatchObject({ billingNow: 2, billedWorkerSeconds: 16 });

    await emu.admin('PUT', '/endpoints/settings', { pendingMs: 1_000, limits: { maxWorkerNum: 30 } });
    const slow = config('ep-slow', { image: { image: 'x:1 [emulator:pull_ms=5000] [emulator:start_ms=1000]' } });
    const { id: slowId } = (await create(slow)).json;
    const at = async (ms: number) => {
      await emu.advance(ms);
      return (await get(slowId)).json.endpoint.workers[0].state.state as string;
    };
    expect(await at(0)).toBe('pending');
    expect(await at(1_000)).toBe('pulling');
    expect(await at(4_999)).toBe('pulling');
    expect(await at(1)).toBe('starting');
    expect(await at(1_000)).toBe('running');
    expect((await emu.call('GET', `${BASE}/endpoint/limit`)).json).toMatchObject({ maxWorkerNum: 30, maxGPUNum: 8 });
    const bad = await emu.call('PUT', '/_emulator/endpoints/settings', {
      json: { limits: { minGPUNum: 9 } },
      key: null,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('endpointSettings.limits.minGPUNum');
  });

  it('refuses, naming the field: limit ranges, products, a taken name, a fixed field, a bad marker', async () => {
    const refusal = async (answer: Promise<{ status: number; json: { message: string } }>) => {
      const { status, json } = await answer;
      expect(status).toBe(400);
      return json.message;
    };
    expect(await refusal(create(config('ep-disk', { rootfsSize: 200 })))).toContain(
      'endpoint.rootfsSize: must be at most 100',
    );
    expect(await refusal(create(config('ep-many', { workerConfig: workers({ maxNum: 21 }) })))).toContain(
      'endpoint.workerConfig.maxNum: must be at most 20',
    );
    expect(await refusal(create(config('ep-inst', { products: [{ id: 'gpu-rtx4090-24g' }] })))).toContain(
      'endpoint.products.0.id',
    );
    expect(await refusal(create(config('ep-cpu', { products: [{ id: 'cpu-16c-64g' }] })))).toContain(
      'must name a serverless GPU product',
    );
    expect(await refusal(create(config('ep-mark', { image: { image: 'x:1 [emulator:pull_ms=soon]' } })))).toContain(
      'endpoint.image.image',
    );
    const { id } = (await create(config('ep-taken', { appName: 'taken' }))).json;
    expect(await refusal(create(config('ep-taken')))).toContain('endpoint.name: is taken');
    expect(await refusal(update({ id, ...config('ep-taken', { appName: 'moved' }) }))).toContain(
      'appName: cannot change',
    );
    expect(
      await refusal(update({ id, ...config('ep-taken', { appName: 'taken', products: [{ id: 'x' }] }) })),
    ).toContain('products: cannot change');
    const { id: other } = (await create(config('ep-other'))).json;
    expect(await refusal(update({ id: other, ...config('ep-taken') }))).toContain('name: is taken');
    // A name frees up once its endpoint is deleted.
    await remove(id);
    expect((await create(config('ep-taken'))).status).toBe(200);
  });

  it("refuses past the account's quota of endpoints and of workers", async () => {
    await emu.admin('PUT', '/endpoints/settings', { maxEndpoints: 2, maxWorkers: 3 });
    expect((await create(config('ep-q1'))).status).toBe(200);
    const workersOver = await create(config('ep-q2'));
    expect(workersOver.status).toBe(400);
    expect(workersOver.json).toMatchObject({ reason: 'ENDPOINT_QUOTA_EXCEEDED' });
    expect(workersOver.json.message).toContain('endpoint.workerConfig.minNum: would bring the account');
    expect((await create(config('ep-q2', { workerConfig: workers({ minNum: 1 }) }))).status).toBe(200);
    const endpointsOver = await create(config('ep-q3', { workerConfig: workers({ minNum: 0 }) }));
    expect(endpointsOver.json).toMatchObject({ reason: 'ENDPOINT_QUOTA_EXCEEDED' });
    expect(endpointsOver.json.message).toContain('quota of 2 endpoints');
  });

  it('counts a create as paid, under its name; faults reach the routes; a reset clears endpoints', async () => {
    const { id } = (await create(config('ep-paid'))).json;
    const { paid } = await emu.admin('GET', '/counters');
    expect(paid.byRoute.createEndpoint['ep-paid']).toBe(1);
    await emu.admin('PUT', '/faults', { routes: { getEndpoint: { errorRate5xx: 1, count: 1 } } });
    expect((await get(id)).status).toBeGreaterThanOrEqual(500);
    expect((await get(id)).status).toBe(200);
    await emu.admin('POST', '/reset');
    expect((await get(id)).status).toBe(404);
    expect((await emu.admin('GET', '/endpoints')).endpoints).toEqual([]);
  });
});
