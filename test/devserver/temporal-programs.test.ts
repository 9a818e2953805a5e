// Where each Temporal program comes from (a path setting, PATH for the CLI, the cache, a checksummed release download,
// a Go build), tried with stand-in programs and a local mirror laid out as the releases are, so no test here starts a
// Go build: PATH holds no `go`. The real programs through `npm start` are in test/starter/fresh-machine.test.ts.
import { existsSync, promises as fs } from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { findProjectRoot } from '../../src/config/settings';
import { downloadRelease, STALL_TIMEOUT_MS } from '../../src/devserver/release-download';
import {
  findOrBuildTemporalCli,
  findTemporalProgram,
  releasePlatform,
  TEMPORAL_PROGRAMS,
  TemporalProgramUnavailable,
} from '../../src/devserver/temporal-programs';
import { mirrorRelease, releaseFolder, serveMirror, sha256 } from '../../bench/support/release-mirror';

/** This machine's CLI archive, as the release names it. */
const CLI_ARCHIVE = TEMPORAL_PROGRAMS.cli.archive(releasePlatform()!.os, releasePlatform()!.arch);

let tmp: string;
/** PATH with neither `temporal` nor `go` in it. */
let emptyDir: string;
let fakeCli: string;
let fakeServer: string;

const stub = async (file: string, says: string): Promise<string> => {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\necho "${says}"\n`, { mode: 0o755 });
  return file;
};

/** The environment findTemporalProgram reads, with nothing of the user's. */
const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: emptyDir, ...vars });

/** findTemporalProgram with the PATH `env` gives, the only thing it reads from process.env. */
async function find<K extends string>(
  program: Parameters<typeof findTemporalProgram<K>>[0],
  vars: Record<string, string>,
  cacheDir: string,
) {
  const logs: string[] = [];
  const began = Date.now();
  const saved = process.env.PATH;
  process.env.PATH = env(vars).PATH;
  try {
    const found = await findTemporalProgram(program, { cacheDir, env: env(vars), log: (m) => logs.push(m) });
    return { found, err: undefined, logs, ms: Date.now() - began };
  } catch (err) {
    return { found: undefined, err: err as Error, logs, ms: Date.now() - began };
  } finally {
    process.env.PATH = saved;
  }
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-programs-'));
  emptyDir = path.join(tmp, 'empty');
  await fs.mkdir(emptyDir);
  fakeCli = await stub(path.join(tmp, 'fake', 'temporal'), 'temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)');
  fakeServer = await stub(path.join(tmp, 'fake', 'temporal-server'), 'temporal-server version 1.32.1');
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('a program named by its settings, on PATH, or in the cache', () => {
  it('finds the project root from src/ and from compiled lib/src/', () => {
    const root = path.resolve(__dirname, '..', '..');
    expect(findProjectRoot(path.join(root, 'src', 'devserver'))).toBe(root);
    expect(findProjectRoot(path.join(root, 'lib', 'src', 'devserver'))).toBe(root);
  });

  it('refuses a path setting that is missing or not executable, naming the setting and the path', async () => {
    const missing = path.join(tmp, 'nope', 'temporal');
    const notExecutable = path.join(tmp, 'not-executable');
    await fs.writeFile(notExecutable, '', { mode: 0o644 });
    for (const file of [missing, notExecutable]) {
      const { err } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_CLI_PATH: file }, path.join(tmp, 'cache'));
      expect(err?.message).toBe(`TEMPORAL_CLI_PATH is set to ${file}, but that is not an executable file.`);
    }
  });

  it('refuses half a program named by settings: the server without its SQL tool', async () => {
    const { err } = await find(TEMPORAL_PROGRAMS.server, { TEMPORAL_SERVER_PATH: fakeServer }, tmp);
    expect(err?.message).toBe('TEMPORAL_SERVER_PATH is set but TEMPORAL_SQL_TOOL_PATH is not: set both, or neither.');
  });

  it('uses the settings first, then `temporal` on PATH, then the cache, saying which', async () => {
    const cacheDir = path.join(tmp, 'cache-with-build');
    const cached = await stub(path.join(cacheDir, 'cli-v1.5.1', 'bin', 'temporal'), 'temporal version 1.5.1 (cached)');
    const fromSetting = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_CLI_PATH: fakeCli, PATH: emptyDir }, cacheDir);
    expect(fromSetting.found).toEqual({ cli: fakeCli });
    expect(fromSetting.logs[0]).toMatch(/^Using the Temporal CLI v1\.5\.1 \(from TEMPORAL_CLI_PATH, \d+\.\d s\)/);

    const onPath = await find(TEMPORAL_PROGRAMS.cli, { PATH: `${emptyDir}:${path.dirname(fakeCli)}` }, cacheDir);
    expect(onPath.found).toEqual({ cli: fakeCli });
    expect(onPath.logs[0]).toContain('(from PATH, ');

    const fromCache = await find(TEMPORAL_PROGRAMS.cli, {}, cacheDir);
    expect(fromCache.found).toEqual({ cli: cached });
    expect(fromCache.logs[0]).toContain('(from the cache, ');
  });

  it('checks that the CLI answers, and says so when it is another release than ours', async () => {
    const other = await stub(path.join(tmp, 'other', 'temporal'), 'temporal version 1.9.1 (Server 1.32.0, UI 2.44.0)');
    const logs: string[] = [];
    const saved = process.env.TEMPORAL_CLI_PATH;
    process.env.TEMPORAL_CLI_PATH = other;
    try {
      await expect(findOrBuildTemporalCli({ log: (m) => logs.push(m) })).resolves.toBe(other);
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
      else process.env.TEMPORAL_CLI_PATH = saved;
    }
    expect(logs.at(-1)).toBe(
      'The Temporal CLI answers: temporal version 1.9.1 (Server 1.32.0, UI 2.44.0) (this project expects 1.5.1)',
    );
  });

  it('refuses a TEMPORAL_RELEASES_URL that is not an http(s) URL, naming it and the rule, before any download', async () => {
    for (const bad of ['github.com', 'ftp://mirror.example/releases']) {
      const { err, logs } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: bad }, path.join(tmp, 'c'));
      expect(err?.message).toMatch(/^Temporal programs configuration: TEMPORAL_RELEASES_URL: must be an http\(s\) URL/);
      expect(logs).toEqual([]);
    }
  });
});

describe('a release downloaded from a mirror of its GitHub release', () => {
  let mirror: Awaited<ReturnType<typeof serveMirror>>;
  let mirrorRoot: string;

  beforeAll(async () => {
    mirrorRoot = path.join(tmp, 'mirror');
    await mirrorRelease(mirrorRoot, 'cli', { temporal: fakeCli });
    await mirrorRelease(mirrorRoot, 'server', { 'temporal-server': fakeServer, 'temporal-sql-tool': fakeServer });
    mirror = await serveMirror(mirrorRoot);
  });

  afterAll(() => mirror.close());

  it('downloads both files of the server into the cache at the release paths, then finds them there', async () => {
    const cacheDir = path.join(tmp, 'cache-downloaded');
    const first = await find(TEMPORAL_PROGRAMS.server, { TEMPORAL_RELEASES_URL: `${mirror.url}/` }, cacheDir);
    const binDir = path.join(cacheDir, 'server-v1.32.1', 'bin');
    expect(first.err).toBeUndefined();
    expect(first.found).toEqual({ server: path.join(binDir, 'server'), sqlTool: path.join(binDir, 'sql') });
    expect(mirror.requests.slice(-2)).toEqual([
      '/temporalio/temporal/releases/download/v1.32.1/checksums.txt',
      expect.stringMatching(
        /^\/temporalio\/temporal\/releases\/download\/v1\.32\.1\/temporal_1\.32\.1_\w+_\w+\.tar\.gz$/,
      ),
    ]);
    expect(first.logs[0]).toMatch(/^Downloading the Temporal server and SQL tool v1\.32\.1: temporal_1\.32\.1_/);
    expect(first.logs.at(-1)).toMatch(/\(from a download of temporal_1\.32\.1_\w+_\w+\.tar\.gz, sha256 verified, /);
    // Nothing of the download is left: no archive, no partial folder, nothing but the programs.
    expect(await fs.readdir(cacheDir)).toEqual(['server-v1.32.1']);
    expect((await fs.readdir(binDir)).sort()).toEqual(['server', 'sql']);
    const asked = mirror.requests.length;
    const again = await find(TEMPORAL_PROGRAMS.server, { TEMPORAL_RELEASES_URL: mirror.url }, cacheDir);
    expect(again.found).toEqual(first.found);
    expect(mirror.requests.length).toBe(asked);
  });

  it('refuses a tampered archive naming both digests, keeps nothing, and with no Go says both ways forward', async () => {
    const name = CLI_ARCHIVE;
    const archive = path.join(releaseFolder(mirrorRoot, 'cli'), name);
    const good = await fs.readFile(archive);
    const expected = await sha256(archive);
    const tampered = Buffer.from(good);
    tampered[tampered.length - 20] ^= 0xff;
    await fs.writeFile(archive, tampered);
    const actual = await sha256(archive);
    const cacheDir = path.join(tmp, 'cache-tampered');
    try {
      const { err, logs } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: mirror.url }, cacheDir);
      expect(err).toBeInstanceOf(TemporalProgramUnavailable);
      expect(err!.message).toContain(
        `${name} from ${mirror.url}/temporalio/cli/releases/download/v1.5.1/${name} does not match its checksum: ` +
          `checksums.txt gives sha256 ${expected}, the ${good.length} bytes received have ${actual}. ` +
          'It was deleted; nothing of it is kept.',
      );
      expect(err!.message).toContain('and Go is not on PATH to build it');
      expect(err!.message).toContain('set TEMPORAL_RELEASES_URL=<mirror>');
      expect(err!.message).toContain('Go 1.26 on PATH: it is built from source once (about 10 minutes on two cores)');
      expect(logs).toHaveLength(1);
      expect(await fs.readdir(cacheDir)).toEqual([]);
    } finally {
      await fs.writeFile(archive, good);
    }
  });

  it('refuses an archive its checksum file has no line for, before downloading it', async () => {
    const checksums = path.join(releaseFolder(mirrorRoot, 'cli'), 'checksums.txt');
    const saved = await fs.readFile(checksums, 'utf8');
    await fs.writeFile(checksums, `${'0'.repeat(64)}  temporal_cli_1.5.1_plan9_386.tar.gz\n`);
    try {
      const before = mirror.requests.length;
      const { err } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: mirror.url }, path.join(tmp, 'c2'));
      expect(err!.message).toMatch(
        /releases\/download\/v1\.5\.1\/checksums\.txt has no sha256 line for temporal_cli_1\.5\.1_\w+_\w+\.tar\.gz, so the archive is not downloaded\./,
      );
      expect(mirror.requests.slice(before)).toEqual(['/temporalio/cli/releases/download/v1.5.1/checksums.txt']);
    } finally {
      await fs.writeFile(checksums, saved);
    }
  });

  it('removes what a download killed outright left in the cache', async () => {
    const cacheDir = path.join(tmp, 'cache-abandoned');
    const abandoned = path.join(cacheDir, '.download-999999-temporal_cli_1.5.1_linux_amd64.tar.gz');
    await fs.mkdir(abandoned, { recursive: true });
    await fs.writeFile(path.join(abandoned, 'half'), 'x');
    const { found } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: mirror.url }, cacheDir);
    expect(found?.cli).toBe(path.join(cacheDir, 'cli-v1.5.1', 'bin', 'temporal'));
    expect(existsSync(abandoned)).toBe(false);
  });

  it('with an empty TEMPORAL_RELEASES_URL, downloads nothing and says so', async () => {
    const before = mirror.requests.length;
    const { err } = await find(TEMPORAL_PROGRAMS.uiServer, { TEMPORAL_RELEASES_URL: '' }, path.join(tmp, 'c3'));
    expect(err!.message).toContain('Downloads are off: TEMPORAL_RELEASES_URL is empty.');
    expect(mirror.requests.length).toBe(before);
  });

  it('draws a progress bar with the size and speed in a terminal, and only its two lines elsewhere', async () => {
    // The archive in eight pieces over about a second, as a slow link sends it.
    const folder = releaseFolder(mirrorRoot, 'cli');
    const archive = await fs.readFile(path.join(folder, CLI_ARCHIVE));
    const slow = await serveMirror(mirrorRoot, (res) => {
      res.writeHead(200, { 'content-length': archive.length });
      const piece = Math.ceil(archive.length / 8);
      const send = (i: number): unknown =>
        i >= 8
          ? res.end()
          : (res.write(archive.subarray(i * piece, (i + 1) * piece)), setTimeout(() => send(i + 1), 120));
      send(0);
    });
    const release = {
      repository: 'cli',
      version: '1.5.1',
      archive: CLI_ARCHIVE,
      checksums: 'checksums.txt',
      members: { temporal: path.join(tmp, 'cache-progress', 'bin', 'temporal') },
    };
    const logs: string[] = [];
    const opts = { label: 'the CLI', cacheDir: path.join(tmp, 'cache-progress'), log: (m: string) => logs.push(m) };
    try {
      for (const columns of [120, 70]) {
        const drawn: string[] = [];
        await downloadRelease(slow.url, release, {
          ...opts,
          progress: { isTTY: true, columns, write: (t: string) => drawn.push(t) },
        });
        const bar = columns > 80 ? ' \\[#+-*\\]' : '';
        expect(drawn[0]).toMatch(
          new RegExp(`^\\r {2}${CLI_ARCHIVE}${bar} \\d+\\.\\d of \\d+\\.\\d MB, \\d+\\.\\d MB/s\\x1b\\[K$`),
        );
        expect(drawn.every((line) => line.length <= columns + 4)).toBe(true);
        expect(drawn.at(-1)).toBe('\r\x1b[K');
      }
      expect(logs).toHaveLength(4);
      const piped: string[] = [];
      await downloadRelease(slow.url, release, { ...opts, progress: { isTTY: false, write: (t) => piped.push(t) } });
      expect(piped).toEqual([]);
    } finally {
      await slow.close();
    }
  });
});

describe('a mirror that does not answer, or stops', () => {
  const servers: http.Server[] = [];
  const sockets: net.Socket[] = [];
  const serve = async (handle: http.RequestListener): Promise<string> => {
    const server = http.createServer(handle);
    server.on('connection', (socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  };

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('gives up within 10 s on a mirror that takes the connection and sends nothing', async () => {
    const url = await serve(() => undefined);
    const { err, ms } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: url }, path.join(tmp, 'c4'));
    expect(err).toBeInstanceOf(TemporalProgramUnavailable);
    expect(err!.message).toContain('/checksums.txt gave no answer within 10 s');
    expect(ms).toBeGreaterThanOrEqual(10_000);
    expect(ms).toBeLessThan(11_000);
  }, 20_000);

  it('gives up on an archive that stops arriving, 15 s after its last data, keeping none of it', async () => {
    const digest = 'a'.repeat(64);
    let stoppedAt = 0;
    const url = await serve((req, res) => {
      if (req.url!.endsWith('checksums.txt')) return void res.end(`${digest}  ${CLI_ARCHIVE}\n`);
      res.writeHead(200, { 'content-length': 1_000_000 });
      res.write(Buffer.alloc(4096));
      stoppedAt = Date.now();
    });
    const cacheDir = path.join(tmp, 'cache-stalled');
    const { err } = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: url }, cacheDir);
    expect(err!.message).toMatch(/\.tar\.gz sent nothing for 15 s/);
    const silentMs = Date.now() - stoppedAt;
    expect(silentMs).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS);
    expect(silentMs).toBeLessThan(STALL_TIMEOUT_MS + 1_000);
    expect(await fs.readdir(cacheDir)).toEqual([]);
  }, 30_000);

  it('refuses an archive cut short, and an error page, naming what happened', async () => {
    const name = CLI_ARCHIVE;
    const cut = await serve((req, res) => {
      if (req.url!.endsWith('checksums.txt')) return void res.end(`${'b'.repeat(64)}  ${name}\n`);
      res.writeHead(200, { 'content-length': 100_000 });
      res.end(Buffer.alloc(1000));
      res.socket?.destroy();
    });
    const cutShort = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: cut }, path.join(tmp, 'c5'));
    expect(cutShort.err!.message).toMatch(new RegExp(`No download of the Temporal CLI v1.5.1: ${cut}/.*${name}: `));
    const missing = await serve((_req, res) => res.writeHead(404).end('Not Found'));
    const notFound = await find(TEMPORAL_PROGRAMS.cli, { TEMPORAL_RELEASES_URL: missing }, path.join(tmp, 'c6'));
    expect(notFound.err!.message).toContain(
      `${missing}/temporalio/cli/releases/download/v1.5.1/checksums.txt answered HTTP 404`,
    );
  });

  it('on this machine, the default github.com works or fails over within 10 s', async () => {
    const { found, err, ms, logs } = await find(TEMPORAL_PROGRAMS.cli, {}, path.join(tmp, 'cache-real'));
    if (found) expect(logs.at(-1)).toContain('from a download of temporal_cli_1.5.1_');
    else {
      expect(err).toBeInstanceOf(TemporalProgramUnavailable);
      expect(ms).toBeLessThanOrEqual(10_500);
      expect(logs[0]).toMatch(
        /^Downloading the Temporal CLI v1\.5\.1: temporal_cli_1\.5\.1_\w+\.tar\.gz from https:\/\/github\.com\/temporalio\/cli\/releases\/download\/v1\.5\.1\/$/,
      );
    }
  }, 30_000);
});
