// Fault injection of every kind, the admin API (counters, reset, fixtures, validation) and the
// environment configuration.
import { EMULATOR_USAGE, parseEmulatorArgs } from '../src/cli';
import { DEV_API_KEY, EmulatorConfigError, loadEmulatorConfig, maskKey } from '../src/config';
import { T2V, TASK_RESULT, emulatorForFile, sleep, startEmu } from './support';

const emu = emulatorForFile();

const faults = (routes: Record<string, Record<string, number>>) => emu.admin('PUT', '/faults', { routes });
const poll = (signal?: AbortSignal) => emu.call('GET', TASK_RESULT, { query: { task_id: 'task_x' }, signal });

describe('fault injection', () => {
  it('injects an exact burst of 5xx with `count`, then answers normally', async () => {
    await faults({ getInstance: { errorRate5xx: 1, status5xx: 502, count: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', {
        query: { instanceId: 'inst-demo-1' },
      });
      statuses.push(res.status);
      if (res.status === 502)
        expect(res.json).toMatchObject({
          code: 502,
          reason: 'BAD_GATEWAY',
          metadata: { trace_id: expect.any(String) },
        });
    }
    expect(statuses).toEqual([502, 502, 502, 200]);
    expect((await emu.admin('GET', '/faults')).routes).toEqual({});
  });

  it('injects 429 with Retry-After, before auth', async () => {
    await faults({ taskResult: { rate429: 1, retryAfterSeconds: 7 } });
    const res = await emu.call('GET', TASK_RESULT, { query: { task_id: 'x' }, key: null });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.json.reason).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('adds latency, and still handles the request', async () => {
    await faults({ quotaList: { latencyMs: 300 } });
    const started = Date.now();
    const res = await emu.call('GET', '/openapi/v1/user/quota/list');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('hangs a request until the client gives up, and frees it on DELETE', async () => {
    await faults({ taskResult: { hangRate: 1 } });
    const started = Date.now();
    await expect(poll(AbortSignal.timeout(300))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    // A hung request the client keeps waiting on is released (its socket closed) by DELETE /faults.
    const waiting = poll().then(
      () => 'answered',
      () => 'closed',
    );
    await sleep(50);
    await emu.admin('DELETE', '/faults');
    expect(await waiting).toBe('closed');
  });

  it('resets the connection without an answer', async () => {
    await faults({ listQuotas: { resetRate: 1 } });
    const err = await emu.call('GET', '/openapi/v1/user/quota/list').then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    // fetch's TypeError comes from another realm than jest's, so compare by name.
    expect(err?.name).toBe('TypeError');
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err?.cause?.code);
  });

  it('answers 200 with a truncated body', async () => {
    await faults({ '*': { malformedRate: 1 } });
    const res = await emu.call('GET', '/openapi/v1/user/quota/list');
    expect(res.status).toBe(200);
    expect(res.json).toBeUndefined();
    expect(res.text.startsWith('{"data":[')).toBe(true);
    // The admin API is never faulted.
    expect((await emu.admin('GET', '/counters')).faultsInjected.byKind).toEqual({ malformed: 1 });
  });

  it('refuses bad fault configs naming the field', async () => {
    const unknownRoute = await emu.call('PUT', '/_emulator/faults', {
      json: { routes: { nope: { rate429: 1 } } },
      key: null,
    });
    expect(unknownRoute.status).toBe(400);
    expect(unknownRoute.json.message).toMatch(/^routes\.nope: is not a route key/);
    const badRate = await emu.call('PUT', '/_emulator/faults', {
      json: { routes: { taskResult: { hangRate: 2 } } },
      key: null,
    });
    expect(badRate.json.message).toBe('routes.taskResult.hangRate: must be at most 1');
    const tooMuch = await emu.call('PUT', '/_emulator/faults', {
      json: { routes: { taskResult: { hangRate: 0.6, resetRate: 0.6 } } },
      key: null,
    });
    expect(tooMuch.json.message).toMatch(/must be at most 1 \(is 1\.2\)/);
  });

  it('takes faults at start (EMULATOR_FAULTS)', async () => {
    const other = await startEmu({ faults: { routes: { taskResult: { errorRate5xx: 1, status5xx: 504, count: 1 } } } });
    try {
      expect((await other.call('GET', TASK_RESULT, { query: { task_id: 'x' } })).status).toBe(504);
      expect((await other.call('GET', TASK_RESULT, { query: { task_id: 'x' } })).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('admin', () => {
  it('counts submissions, polls per task, requests per route and 429s', async () => {
    const { json } = await emu.call('POST', T2V, { json: { prompt: 'count me' } });
    for (let i = 0; i < 3; i++) await emu.call('GET', TASK_RESULT, { query: { task_id: json.task_id } });
    await faults({ quotaList: { rate429: 1, count: 1 } });
    await emu.call('GET', '/openapi/v1/user/quota/list');
    const c = await emu.admin('GET', '/counters');
    expect(c.submissions).toEqual({ total: 1, byOperation: { submitTextToVideo: 1 } });
    expect(c.polls).toEqual({ total: 3, byTask: { [json.task_id]: 3 } });
    expect(c.requests).toEqual({ submitTextToVideo: 1, taskResult: 3, quotaList: 1 });
    expect(c.rateLimited).toBe(1);
    expect(c.faultsInjected).toMatchObject({ total: 1, byKind: { rate429: 1 }, byRoute: { quotaList: 1 } });
    expect((await emu.admin('GET', `/tasks/${json.task_id}`)).polls).toBe(3);
    await emu.admin('POST', '/counters/reset');
    expect((await emu.admin('GET', '/counters')).requests).toEqual({});
  });

  it('counts batch routes like the others', async () => {
    await emu.call('GET', '/openai/v1/batches');
    await emu.call('GET', '/openai/v1/files/file-nope');
    expect((await emu.admin('GET', '/counters')).requests).toEqual({ listBatches: 1, getFile: 1 });
  });

  it('resets everything to the fixtures', async () => {
    await emu.admin('PUT', '/members/member-demo/budget', { remaining: 5 });
    await emu.admin('PUT', '/clock', { speed: 3 });
    const { json } = await emu.call('POST', T2V, { json: { prompt: 'x' } });
    await faults({ taskResult: { latencyMs: 10 } });
    await emu.admin('POST', '/reset');
    expect((await emu.admin('GET', '/members')).members[0].remaining).toBe(500_000);
    expect((await emu.call('GET', TASK_RESULT, { query: { task_id: json.task_id } })).status).toBe(404);
    expect((await emu.admin('GET', '/faults')).routes).toEqual({});
    expect((await emu.admin('GET', '/clock')).speed).toBe(100);
    expect((await emu.admin('GET', '/counters')).submissions.total).toBe(0);
  });

  it('loads fixtures, keeps them across resets, and goes back to the built-ins', async () => {
    await emu.admin('POST', '/fixtures', {
      members: [
        { id: 'member-a', name: 'A', remaining: 10 },
        { id: 'member-demo', remaining: 1 },
      ],
      apiKeys: [{ key: 'emu-key-of-member-a', id: 'key-a', userId: 'user-a', memberId: 'member-a' }],
      instances: [{ id: 'inst-x', status: 'exited', billingMode: 'payAsYouGo', endTime: -1 }],
      tasks: { submitTextToVideo: { processingMs: 42 } },
    });
    const asA = await emu.call('POST', '/openapi/v1/user/team/check-budget-by-cost', {
      json: { member_id: 'member-a', cost: 10 },
      key: 'emu-key-of-member-a',
    });
    expect(asA.json).toEqual({ enough: true });
    // The dev key still works (env keys stay valid) and the fixture instance replaced the built-ins.
    const inst = await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', { query: { instanceId: 'inst-x' } });
    expect(inst.json).toMatchObject({ id: 'inst-x', status: 'exited', endTime: -1 });
    await emu.admin('POST', '/reset');
    expect((await emu.admin('GET', '/tasks/settings')).submitTextToVideo.processingMs).toBe(42);
    const shown = await emu.admin('GET', '/fixtures');
    expect(JSON.stringify(shown)).not.toContain('emu-key-of-member-a');
    expect(JSON.stringify(shown)).not.toContain(DEV_API_KEY);
    await emu.admin('DELETE', '/fixtures');
    expect(
      (await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', { query: { instanceId: 'inst-x' } })).status,
    ).toBe(400);
  });

  it('refuses bad fixtures naming the field', async () => {
    const res = await emu.call('POST', '/_emulator/fixtures', {
      json: { apiKeys: [{ key: 'emu-key-of-nobody', id: 'k', memberId: 'member-ghost' }] },
      key: null,
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('apiKeys[0].memberId: must name a member of the fixtures');
    const shape = await emu.call('POST', '/_emulator/fixtures', { json: { members: [{ id: 'm' }] }, key: null });
    expect(shape.json.message).toBe('members[0].remaining: is required');
  });

  it('sets and advances the clock, validating input', async () => {
    const before = await emu.admin('GET', '/clock');
    const after = await emu.admin('POST', '/clock/advance', { ms: 3_600_000 });
    expect(after.now - before.now).toBeGreaterThanOrEqual(3_600_000);
    const bad = await emu.call('PUT', '/_emulator/clock', { json: { speed: 0 }, key: null });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('speed: must be greater than 0');
  });
});

describe('configuration', () => {
  it('reads EMULATOR_* with defaults and names bad variables without echoing keys', () => {
    const defaults = loadEmulatorConfig({});
    expect(defaults).toMatchObject({ port: 8787, host: '127.0.0.1', apiKeys: [DEV_API_KEY], clockSpeed: 1 });
    const set = loadEmulatorConfig({
      EMULATOR_PORT: '0',
      EMULATOR_API_KEYS: 'emu-key-one-1234, emu-key-two-5678',
      EMULATOR_CLOCK_SPEED: '60',
      EMULATOR_FAULTS: '{"routes":{"*":{"latencyMs":5}}}',
    });
    expect(set).toMatchObject({ port: 0, apiKeys: ['emu-key-one-1234', 'emu-key-two-5678'], clockSpeed: 60 });
    expect(set.faults.routes['*']).toEqual({ latencyMs: 5 });
    expect(() => loadEmulatorConfig({ EMULATOR_CLOCK_SPEED: '0', EMULATOR_API_KEYS: 'short' })).toThrow(
      /EMULATOR_API_KEYS\[0\]: each key must be at least 8 characters long.*|EMULATOR_CLOCK_SPEED: must be greater than 0/,
    );
    expect(() => loadEmulatorConfig({ EMULATOR_FAULTS: '{oops' })).toThrow(/EMULATOR_FAULTS must be valid JSON/);
    expect(maskKey(DEV_API_KEY)).toBe('emu-****0000');
  });

  it('reads the command line: each flag over its variable, --help, and an unknown flag or stray word refused', () => {
    const flags = parseEmulatorArgs(['--port', '0', '--clock-speed=50', '--scenario', 'x.json']);
    expect(flags).toEqual({ port: '0', clockSpeed: '50', scenario: 'x.json' });
    expect(loadEmulatorConfig({ EMULATOR_PORT: '1', EMULATOR_CLOCK_SPEED: '7' }, { port: '0' })).toMatchObject({
      port: 0,
      clockSpeed: 7,
    });
    expect(() => loadEmulatorConfig({}, { port: '99999' })).toThrow('--port: must be at most 65535');
    expect(parseEmulatorArgs(['--help'])).toBe('help');
    for (const flag of ['--port', '--host', '--clock-speed', '--fixtures', '--scenario', '--record']) {
      expect(EMULATOR_USAGE).toContain(flag);
    }
    expect(() => parseEmulatorArgs(['--prot', '0'])).toThrow(EmulatorConfigError);
    expect(() => parseEmulatorArgs(['--prot', '0'])).toThrow(/--prot/);
    expect(() => parseEmulatorArgs(['--port'])).toThrow(/--port/);
    expect(() => parseEmulatorArgs(['serve'])).toThrow(/serve/);
  });
});
