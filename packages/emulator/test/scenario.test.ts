// Scenarios over real HTTP: loaded through the admin API or at start, checked with errors naming the
// field and rule, and played on the emulated clock (frozen here, so only advance() moves it and every
// boundary is exact).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmulatorConfigError, loadEmulatorConfig } from '../src/config';
import { startEmulator } from '../src/server';
import { emulatorForFile, T2V, TASK_RESULT } from './support';

const emu = emulatorForFile();
const EXAMPLES = path.join(__dirname, '..', 'scenarios');
const quotaList = () => emu.call('GET', '/openapi/v1/user/quota/list');

const loadScenario = (body: unknown) => emu.call('POST', '/_emulator/scenario', { json: body, key: null });

describe('scenario admin API', () => {
  it('refuses a bad scenario with 400 naming each field and rule', async () => {
    const res = await loadScenario({
      name: 'bad',
      events: [
        { at: '5 minutes', do: 'faults', routes: { '*': { errorRate5xx: 1 } } },
        { at: 0, do: 'faults', routes: { noSuchRoute: { errorRate5xx: 1 } } },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('INVALID_REQUEST_BODY');
    expect(res.json.message).toMatch(/^events\[0\]\.at: must be a duration/);
    // Route keys are checked once the shape is right.
    const unknown = await loadScenario({
      name: 'bad',
      events: [{ at: 0, do: 'faults', routes: { noSuchRoute: { errorRate5xx: 1 } } }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toMatch(/^events\[0\]\.routes\.noSuchRoute: is not a route key/);
    expect((await emu.admin('GET', '/scenario')).running).toBe(false);
  });

  it('plays an outage window exactly on the emulated clock, then DELETE and reset stop it', async () => {
    await emu.freeze();
    const loaded = await emu.admin('POST', '/scenario', {
      name: 'window',
      events: [{ at: '30s', for: '5m', do: 'faults', routes: { '*': { errorRate5xx: 1, status5xx: 503 } } }],
    });
    expect(loaded).toMatchObject({
      running: true,
      name: 'window',
      events: [{ index: 0, at: 30_000, state: 'pending' }],
    });
    expect((await quotaList()).status).toBe(200);
    await emu.advance(29_990);
    expect((await quotaList()).status).toBe(200);
    await emu.advance(10);
    expect((await quotaList()).status).toBe(503);
    expect((await emu.admin('GET', '/faults')).routes['*']).toEqual({ errorRate5xx: 1, status5xx: 503 });
    await emu.advance(300_000 - 1);
    expect((await quotaList()).status).toBe(503);
    await emu.advance(1);
    expect((await quotaList()).status).toBe(200);
    expect(await emu.admin('GET', '/scenario')).toMatchObject({ finished: true, events: [{ state: 'over' }] });

    // Stopping mid-window clears the faults the scenario set.
    await emu.admin('POST', '/scenario', {
      name: 'open',
      events: [{ at: 0, do: 'faults', routes: { '*': { errorRate5xx: 1 } } }],
    });
    expect((await quotaList()).status).toBe(500);
    expect(await emu.admin('DELETE', '/scenario')).toEqual({ running: false });
    expect((await quotaList()).status).toBe(200);
    await emu.admin('POST', '/scenario', {
      name: 'open',
      events: [{ at: 0, do: 'faults', routes: { '*': { errorRate5xx: 1 } } }],
    });
    await emu.admin('POST', '/reset');
    expect((await emu.admin('GET', '/scenario')).running).toBe(false);
    expect((await quotaList()).status).toBe(200);
  });

  it('fails the next matching task with the scenario reason, once', async () => {
    await emu.freeze();
    await emu.admin('POST', '/scenario', {
      name: 'refusal',
      events: [{ at: '1s', do: 'failTasks', reason: 'ILLEGAL_PROMPT', operation: 'submitTextToVideo' }],
    });
    const submit = async () => (await emu.call('POST', T2V, { json: { prompt: 'a fox' } })).json.task_id as string;
    const before = await submit(); // t = 0: not yet due
    await emu.advance(1_000);
    const failing = await submit();
    const after = await submit();
    await emu.advance(60_000);
    const statusOf = async (id: string) =>
      (await emu.call('GET', TASK_RESULT, { query: { task_id: id } })).json.task as { status: string; reason: string };
    expect(await statusOf(before)).toMatchObject({ status: 'TASK_STATUS_SUCCEED' });
    expect(await statusOf(failing)).toMatchObject({ status: 'TASK_STATUS_FAILED', reason: 'ILLEGAL_PROMPT' });
    expect(await statusOf(after)).toMatchObject({ status: 'TASK_STATUS_SUCCEED' });
  });
});

describe('scenario at start', () => {
  it('starts with startEmulator({scenario}) at t = 0, and refuses an unknown route key at start', async () => {
    const running = await startEmulator({
      port: 0,
      scenario: { name: 'at-start', events: [{ at: 0, do: 'faults', routes: { quotaList: { rate429: 1 } } }] },
    });
    try {
      const res = await fetch(`${running.url}/openapi/v1/user/quota/list`, {
        headers: { authorization: `Bearer ${running.state.options.apiKeys[0]}` },
      });
      expect(res.status).toBe(429);
    } finally {
      await running.close();
    }
    await expect(
      startEmulator({ port: 0, scenario: { name: 'x', events: [{ at: 0, do: 'faults', routes: { nope: {} } }] } }),
    ).rejects.toThrow(/^scenario: events\[0\]\.routes\.nope: is not a route key/);
  });

  it('reads --scenario / EMULATOR_SCENARIO files, naming the flag or variable in errors', () => {
    const options = loadEmulatorConfig({}, { scenario: path.join(EXAMPLES, 'outage.json') });
    expect(options.scenario).toMatchObject({ name: 'outage-5m', events: [{ at: 30_000, for: 300_000 }] });

    const dir = mkdtempSync(path.join(tmpdir(), 'scenario-'));
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'x', events: [{ at: 0, do: 'clockSpeed', speed: 0 }] }));
    expect(() => loadEmulatorConfig({}, { scenario: bad })).toThrow(
      new EmulatorConfigError(`--scenario ${bad}: events[0].speed: must be greater than 0`),
    );
    expect(() => loadEmulatorConfig({ EMULATOR_SCENARIO: path.join(dir, 'missing.json') })).toThrow(
      /^EMULATOR_SCENARIO: cannot read .*missing\.json \(ENOENT\)$/,
    );
    writeFileSync(bad, '{"name": ');
    expect(() => loadEmulatorConfig({}, { scenario: bad })).toThrow(/^--scenario: cannot read .* as JSON/);
    expect(() => loadEmulatorConfig({}, { port: '70000', clockSpeed: 'fast' })).toThrow(
      /--port: must be at most 65535.*--clock-speed: must be a number/,
    );
  });
});
