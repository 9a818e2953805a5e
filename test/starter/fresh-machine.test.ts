// `npm start` as a TypeScript developer's fresh machine meets it: a copy of this checkout with no `.temporal/` cache,
// no `go` on PATH, and the Temporal releases reached through TEMPORAL_RELEASES_URL, here a local mirror laid out as
// GitHub's release paths, holding archives made from the programs the test setup has. Run in a terminal (`script`),
// as the README says; then the README's first generation. A tampered archive is refused, with both ways forward.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, promises as fs, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { getFreePort } from '../../src/devserver/processes';
import {
  mirrorAllReleases,
  pathWithoutGo,
  serveMirror,
  sha256,
  type MirroredRelease,
} from '../../bench/support/release-mirror';
import { cleanEnv, listening, waitFor } from '../helpers/processes';

const ROOT = path.resolve(__dirname, '..', '..');

/** This checkout's files as a clone would have them (uncommitted changes included), its node_modules shared. */
async function copyCheckout(dest: string): Promise<void> {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && existsSync(path.join(ROOT, f)));
  for (const file of files) {
    await fs.mkdir(path.dirname(path.join(dest, file)), { recursive: true });
    await fs.copyFile(path.join(ROOT, file), path.join(dest, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dest, 'node_modules'));
}

/** `npm start` in a terminal of its own (util-linux `script`); its screen, without colours. */
function npmStartInTerminal(cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, raw: () => screen, text: () => stripVTControlCharacters(screen) };
}

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not end in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

describe('npm start on a fresh machine: no Go, no cache, the Temporal releases from a mirror', () => {
  let work: string;
  let clone: string;
  let mirrorRoot: string;
  let mirror: Awaited<ReturnType<typeof serveMirror>>;
  let releases: MirroredRelease[];
  let env: NodeJS.ProcessEnv;
  let ports: { temporal: number; ui: number };
  let stack: ReturnType<typeof npmStartInTerminal> | undefined;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'fresh-machine-'));
    clone = path.join(work, 'platform-ops');
    mirrorRoot = path.join(work, 'mirror');
    releases = await mirrorAllReleases(mirrorRoot, () => undefined);
    mirror = await serveMirror(mirrorRoot);
    await copyCheckout(clone);
    ports = { temporal: await getFreePort(), ui: await getFreePort() };
    env = cleanEnv({
      PATH: pathWithoutGo(),
      TEMPORAL_RELEASES_URL: mirror.url,
      TEMPORAL_DEV_PORT: String(ports.temporal),
      TEMPORAL_DEV_UI_PORT: String(ports.ui),
      EMULATOR_PORT: String(await getFreePort()),
    });
    for (const name of ['PAYLOAD_KEYS', 'PAYLOAD_KEY_FILE', 'PAYLOAD_ENCRYPTION', 'LOG_FORMAT', 'GOROOT']) {
      delete env[name];
    }
  }, 120_000);

  afterAll(async () => {
    if (stack && stack.child.exitCode === null) {
      stack.child.kill('SIGKILL');
      spawnSync('pkill', ['-f', clone]);
    }
    await mirror?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('downloads and verifies the server and UI server, brings the stack up, and runs the first generation', async () => {
    stack = npmStartInTerminal(clone, env);
    await waitFor(
      () => stack!.text().includes('The local stack is up.') || stack!.child.exitCode !== null,
      240_000,
      `the stack; so far:\n${stack.text()}`,
    );
    const screen = stack.text();
    expect(screen).toContain('The local stack is up.');
    expect(screen).toMatch(
      new RegExp(
        `Downloading the Temporal server and SQL tool v1\\.32\\.1: temporal_1\\.32\\.1_\\w+\\.tar\\.gz from ${mirror.url}/temporalio/temporal/releases/download/v1\\.32\\.1/`,
      ),
    );
    expect(screen).toMatch(
      /Using the Temporal server and SQL tool v1\.32\.1 \(from a download of temporal_1\.32\.1_\w+\.tar\.gz, sha256 verified, \d+\.\d s\)/,
    );
    expect(screen).toMatch(
      /Using the Temporal UI server v2\.55\.0 \(from a download of ui-server_2\.55\.0_\w+\.tar\.gz, sha256 verified/,
    );
    // In a terminal, the progress bar: redrawn in place, with the size and the speed.
    expect(stack.raw()).toMatch(
      /\r {2}temporal_1\.32\.1_\w+\.tar\.gz( \[[#-]{20}\])? \d+\.\d of \d+\.\d MB, \d+\.\d MB\/s/,
    );
    // `npm start` needs the server and the UI server, not the operator's CLI.
    expect(mirror.requests.filter((r) => r.includes('/releases/download/'))).toEqual([
      '/temporalio/temporal/releases/download/v1.32.1/checksums.txt',
      `/temporalio/temporal/releases/download/v1.32.1/${path.basename(releases[0].archive)}`,
      '/temporalio/ui-server/releases/download/v2.55.0/ui-server_2.55.0_checksums.txt',
      `/temporalio/ui-server/releases/download/v2.55.0/${path.basename(releases[1].archive)}`,
    ]);
    expect((await fs.readdir(path.join(clone, '.temporal'))).sort()).toEqual(['server-v1.32.1', 'ui-server-v2.55.0']);
    expect(await listening(ports.temporal)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${ports.ui}`)).status).toBe(200);

    // The README's first generation, from another terminal.
    const first = await run(
      'npm',
      ['run', 'starter', '--', 'start', 'mediaGeneration', '--prompt', 'a red fox', '--wait'],
      clone,
      { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}` },
      180_000,
    );
    expect(first.code).toBe(0);
    // Its result, and where its outputs were kept.
    expect(first.output).toMatch(/ {2}\w+ {2}file:\/\/\S+/);

    // Ctrl-C in its terminal stops everything (npm, signalled too, ends with 130 as a shell's Ctrl-C does).
    stack.child.stdin.write('\x03');
    expect([0, 130]).toContain(await stack.exited);
    expect(stack.text()).toContain('SIGINT: stopping the stack…');
    await waitFor(async () => !(await listening(ports.temporal)), 30_000, 'the dev server to stop');
  }, 480_000);

  it('refuses a tampered archive, naming both digests, keeps nothing, and with no Go says both ways forward', async () => {
    const server = releases.find((r) => r.program === 'server')!;
    const good = await fs.readFile(server.archive);
    const expected = await sha256(server.archive);
    const tampered = Buffer.from(good);
    tampered[Math.floor(tampered.length / 2)] ^= 0xff;
    await fs.writeFile(server.archive, tampered);
    const actual = await sha256(server.archive);
    rmSync(path.join(clone, '.temporal'), { recursive: true, force: true });
    try {
      const { code, output } = await run('npm', ['start'], clone, env, 240_000);
      expect(code).not.toBe(0);
      const name = path.basename(server.archive);
      expect(output).toContain(`${name} from ${mirror.url}/temporalio/temporal/releases/download/v1.32.1/${name}`);
      expect(output).toContain(
        `checksums.txt gives sha256 ${expected}, the ${good.length} bytes received have ${actual}`,
      );
      expect(output).toContain('The Temporal server and SQL tool v1.32.1 is not in');
      expect(output).toContain('and Go is not on PATH to build it');
      expect(output).toContain('set TEMPORAL_RELEASES_URL=<mirror>');
      expect(output).toContain('Go 1.26 on PATH: it is built from source once (8 to 13 minutes on two cores)');
      // Nothing of the refused archive is in the cache.
      const cache = path.join(clone, '.temporal');
      expect(existsSync(cache) ? await fs.readdir(cache, { recursive: true }) : []).toEqual([]);
    } finally {
      await fs.writeFile(server.archive, good);
    }
  }, 300_000);
});
