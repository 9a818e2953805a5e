// The emulator as another project uses it: this package packed with `npm pack` (its prepack builds lib/
// with its type declarations), installed from the tarball, with the client package whose wire schemas it
// speaks, into a temporary project outside this repository, then `npx platform-ops-emulator` and
// `require('@platform-ops/emulator')` there.
// Dependencies come from npm's cache when it has them (`npm ci` filled it), so the install is quick.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { tscAsConsumer } from '../../../test/helpers/consumer-tsc';
import { waitFor } from '../../../test/helpers/processes';

const exec = promisify(execFile);
const PACKAGE = path.join(__dirname, '..');
const CLIENT = path.join(__dirname, '..', '..', 'client');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

jest.setTimeout(300_000);

let project: string;
let installed: string;

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'platform-ops-emulator-consumer-'));
  const pack = async (cwd: string) => {
    const { stdout } = await exec(NPM, ['pack', '--silent', '--pack-destination', project], {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    });
    return path.join(project, stdout.trim().split('\n').pop()!);
  };
  const tarballs = [await pack(CLIENT), await pack(PACKAGE)];
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  await exec(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
    cwd: project,
    maxBuffer: 16 * 1024 * 1024,
  });
  installed = path.join(project, 'node_modules', '@platform-ops', 'emulator');
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

// Unref: a race it lost must not keep jest waiting.
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Whether a process (or, negative, a process group) still has a member. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)],
  );
}

it('packs the compiled emulator at a flat lib/ and the example scenarios, and nothing of the service', () => {
  const files = filesUnder(installed);
  expect(files).toEqual(
    expect.arrayContaining(['package.json', 'README.md', 'lib/index.js', 'lib/index.d.ts', 'lib/main.js']),
  );
  expect(files).toEqual(expect.arrayContaining(['scenarios/outage.json']));
  const unexpected = files.filter(
    (f) => !/^(package\.json|README\.md|lib\/.+\.(js|d\.ts)|scenarios\/[\w.-]+\.json)$/.test(f),
  );
  expect(unexpected).toEqual([]);
  expect(files.filter((f) => /^lib\/(src|packages)\//.test(f))).toEqual([]);
  // Its dependencies: the wire schemas from the client package, and no Temporal.
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies).sort()).toEqual([
    '@fastify/multipart',
    '@platform-ops/client',
    'fastify',
    'zod',
  ]);
});

it('runs `npx platform-ops-emulator` with a scenario and a recording, from the other project', async () => {
  const scenario = path.join(installed, 'scenarios', 'outage.json');
  const child = spawn(
    'npx',
    [
      '--no-install',
      'platform-ops-emulator',
      '--port',
      '0',
      '--clock-speed',
      '1000',
      '--scenario',
      scenario,
      '--record',
      'rec.jsonl',
    ],
    {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the test can stop npx and the emulator under it together.
      detached: true,
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await waitFor(() => /listening on (http:\/\/\S+)/.test(output), 30_000, `the emulator to listen:\n${output}`);
    const url = /listening on (http:\/\/\S+)/.exec(output)![1];
    // The lines after the first may come in a later chunk.
    await waitFor(() => output.includes('scenario "outage-5m" started'), 10_000, `the scenario:\n${output}`);
    const quota = () =>
      fetch(`${url}/openapi/v1/user/quota/list`, { headers: { authorization: 'emu-dev-key-0000000000000000' } });
    // Clock at 1000×: the outage starts 30 ms after start and lasts 300 ms.
    await waitFor(async () => (await quota()).status === 503, 10_000, 'the outage');
    await waitFor(async () => (await quota()).status === 200, 10_000, 'the end of the outage');
  } finally {
    // npx runs the bin under `sh -c`, which does not pass a signal on: stop the whole process group.
    const exited = new Promise((r) => child.once('exit', r));
    // Already gone (it failed to start, say): the test's own failure is the one to report.
    const signal = (sig: NodeJS.Signals) => {
      if (isAlive(-child.pid!)) process.kill(-child.pid!, sig);
    };
    signal('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!stopped) signal('SIGKILL');
    // The recording is complete once the emulator itself has closed its file.
    await waitFor(() => !isAlive(-child.pid!), 10_000, 'the emulator to exit');
  }
  const lines = readFileSync(path.join(project, 'rec.jsonl'), 'utf8').trim().split('\n');
  expect(lines.length).toBeGreaterThanOrEqual(2);
  expect(lines.join('\n')).not.toContain('emu-dev-key-0000000000000000');
}, 90_000);

it('refuses a bad flag with exit status 2, naming the flag and the rule', async () => {
  const failed = (await exec('npx', ['--no-install', 'platform-ops-emulator', '--port', '99999'], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project },
  }).catch((err: unknown) => err)) as { code?: number; stderr?: string };
  expect(failed.code).toBe(2);
  expect(failed.stderr).toContain('--port: must be at most 65535');
});

it('starts, seeds, faults, counts and stops through `@platform-ops/emulator`, typed', async () => {
  writeFileSync(
    path.join(project, 'consumer.ts'),
    `import { startEmulator, EmulatorAdmin, DEV_API_KEY, type CountersView } from '@platform-ops/emulator';

async function main(): Promise<void> {
  const emu = await startEmulator({ port: 0, clockSpeed: 100, fixtures: { members: [{ id: 'member-demo', name: 'Demo', remaining: 1000 }] } });
  try {
    await emu.admin.setFaults({ routes: { quotaList: { errorRate5xx: 1, count: 1 } } });
    const call = () => fetch(emu.url + '/openapi/v1/user/quota/list', { headers: { authorization: 'Bearer ' + DEV_API_KEY } });
    const statuses = [(await call()).status, (await call()).status];
    const counters: CountersView = await new EmulatorAdmin(emu.url).counters();
    const members = await emu.admin.request<{ members: { id: string; remaining: number }[] }>('GET', '/members');
    console.log(JSON.stringify({ statuses, requests: counters.requests.quotaList, members: members.members }));
  } finally {
    await emu.close();
  }
}
void main();
`,
  );
  // Typed as a user's project would be (Node 16+ resolution reads package.json "exports").
  expect(await tscAsConsumer('consumer.ts', { cwd: project, emit: true })).toBe('');
  expect(existsSync(path.join(project, 'consumer.js'))).toBe(true);
  const { stdout } = await exec(process.execPath, ['consumer.js'], { cwd: project });
  expect(JSON.parse(stdout)).toEqual({
    statuses: [500, 200],
    requests: 2,
    members: [expect.objectContaining({ id: 'member-demo', remaining: 1000 })],
  });
  // And from an ES module, by name.
  writeFileSync(
    path.join(project, 'esm.mjs'),
    `import { startEmulator } from '@platform-ops/emulator';
const emu = await startEmulator({ port: 0 });
console.log((await fetch(emu.url + '/healthz')).status);
await emu.close();
`,
  );
  expect((await exec(process.execPath, ['esm.mjs'], { cwd: project })).stdout.trim()).toBe('200');
});
