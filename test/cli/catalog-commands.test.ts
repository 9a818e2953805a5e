// `products` and `templates` as a user runs them, against the tests' emulator: every page is followed
// (its 25 templates come in pages), the spec's filters reach the platform, and a bad filter is refused
// naming its field before anything is sent.
import { DEV_API_KEY } from '@platform-ops/emulator';
import { getFreePort } from '../../src/devserver/processes';
import { cleanEnv, runNode } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const starter = (args: string[]) =>
  runNode('starter.js', args, cleanEnv({ PLATFORM_BASE_URL: testEnv('emulatorUrl'), PLATFORM_API_KEY: DEV_API_KEY }));

/** The ids in a table's first column. */
const ids = (stdout: string, prefix: string) =>
  stdout
    .split('\n')
    .map((line) => line.split(/\s+/)[0])
    .filter((id) => id.startsWith(prefix));

describe('catalog commands', () => {
  it('lists every template, page after page', async () => {
    const run = await starter(['templates']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const listed = ids(run.stdout, 'tpl-');
    expect(listed).toHaveLength(25);
    expect(new Set(listed).size).toBe(25);
    expect(run.stdout).toContain('25 items');
  });

  it("passes the spec's filters on: the user's community templates", async () => {
    const run = await starter(['templates', '--mine']);
    expect(run.code).toBe(0);
    expect(ids(run.stdout, 'tpl-')).toEqual(['tpl-023', 'tpl-024']);
  });

  it('lists the products of one type, with what createInstance needs', async () => {
    const all = await starter(['products']);
    const cpu = await starter(['products', '--type', 'cpu']);
    expect(all.code).toBe(0);
    expect(cpu.code).toBe(0);
    expect(ids(cpu.stdout, '').length).toBeGreaterThan(0);
    for (const line of cpu.stdout.split('\n').slice(2, -2)) expect(line).toMatch(/\bcpu\b/);
    expect(all.stdout).toMatch(/^id\s+name\s+type\s+category\s+resources\s+billing\s+regions/m);
  });

  it('refuses a filter outside the rule, naming it, with nothing sent', async () => {
    const run = await starter(['products', '--type', 'tpu']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/productType/);
  });

  it('with no PLATFORM_* set, uses the emulator `npm start` runs, and says so; with none there, says what to set', async () => {
    const port = new URL(testEnv('emulatorUrl')).port;
    const local = await runNode('starter.js', ['templates', '--mine'], cleanEnv({ EMULATOR_PORT: port }));
    expect(local.code).toBe(0);
    expect(local.stderr).toBe(`Platform: the emulator at http://127.0.0.1:${port} (PLATFORM_BASE_URL is not set).\n`);
    expect(ids(local.stdout, 'tpl-')).toEqual(['tpl-023', 'tpl-024']);

    const none = await runNode('starter.js', ['quotas'], cleanEnv({ EMULATOR_PORT: String(await getFreePort()) }));
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(
      /PLATFORM_BASE_URL and PLATFORM_API_KEY are not set, and no emulator answers at .*npm start/,
    );
  });
});
