// findOrBuildTemporalCli: where the operator's CLI comes from (TEMPORAL_CLI_PATH, PATH, the cache, a download), each
// tried with stand-ins here, so no test starts a Go build; the dev server itself is tested in ./dev-server.test.ts.
import { existsSync, promises as fs } from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as tar from 'tar';
import { findProjectRoot } from '../../src/config/settings';
import { findOrBuildTemporalCli, TemporalCliNotFoundError } from '../../src/devserver/find-temporal-cli';

/** Runs `fn` with some environment variables replaced (undefined = unset), restoring them afterwards. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

describe('findOrBuildTemporalCli resolution order', () => {
  let tmp: string;
  let fakeCli: string;
  let emptyDir: string;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'find-temporal-cli-'));
    // A stand-in binary: resolution only needs something executable that answers --version.
    fakeCli = path.join(tmp, 'fake', 'temporal');
    await fs.mkdir(path.dirname(fakeCli));
    await fs.writeFile(fakeCli, '#!/bin/sh\necho "temporal version 9.9.9 (fake)"\n', { mode: 0o755 });
    // PATH with neither `temporal` nor `go` in it, so no test here can start a Go build.
    emptyDir = path.join(tmp, 'empty');
    await fs.mkdir(emptyDir);
  });

  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('finds the project root from src/ and from compiled lib/src/', () => {
    const root = path.resolve(__dirname, '..', '..');
    expect(findProjectRoot(path.join(root, 'src', 'devserver'))).toBe(root);
    expect(findProjectRoot(path.join(root, 'lib', 'src', 'devserver'))).toBe(root);
  });

  it('rejects a TEMPORAL_CLI_PATH that does not exist, naming the variable and the path', async () => {
    const missing = path.join(tmp, 'nope', 'temporal');
    await withEnv({ TEMPORAL_CLI_PATH: missing }, async () => {
      const attempt = findOrBuildTemporalCli({ cacheDir: path.join(tmp, 'cache') });
      await expect(attempt).rejects.toThrow('TEMPORAL_CLI_PATH');
      await expect(attempt).rejects.toThrow(missing);
    });
  });

  it('rejects a TEMPORAL_CLI_PATH that is not executable', async () => {
    const notExecutable = path.join(tmp, 'not-executable');
    await fs.writeFile(notExecutable, '', { mode: 0o644 });
    await withEnv({ TEMPORAL_CLI_PATH: notExecutable }, async () => {
      await expect(findOrBuildTemporalCli({ cacheDir: path.join(tmp, 'cache') })).rejects.toThrow(/TEMPORAL_CLI_PATH/);
    });
  });

  it('prefers TEMPORAL_CLI_PATH over PATH and logs the version', async () => {
    const logs: string[] = [];
    await withEnv({ TEMPORAL_CLI_PATH: fakeCli, PATH: path.join(tmp, 'elsewhere') }, async () => {
      await expect(findOrBuildTemporalCli({ log: (m) => logs.push(m) })).resolves.toBe(fakeCli);
    });
    expect(logs.join('\n')).toContain('temporal version 9.9.9');
  });

  it('uses `temporal` on PATH before the cache', async () => {
    const cacheDir = path.join(tmp, 'cache-with-build');
    await fs.mkdir(path.join(cacheDir, 'bin'), { recursive: true });
    await fs.copyFile(fakeCli, path.join(cacheDir, 'bin', 'temporal'));
    await withEnv({ TEMPORAL_CLI_PATH: undefined, PATH: `${emptyDir}${path.delimiter}${path.dirname(fakeCli)}` }, () =>
      expect(findOrBuildTemporalCli({ cacheDir })).resolves.toBe(fakeCli),
    );
  });

  it('falls back to the cached build', async () => {
    const cacheDir = path.join(tmp, 'cache-with-build');
    await withEnv({ TEMPORAL_CLI_PATH: undefined, PATH: emptyDir }, () =>
      expect(findOrBuildTemporalCli({ cacheDir })).resolves.toBe(path.join(cacheDir, 'bin', 'temporal')),
    );
  });

  it('explains the options when there is no CLI and no Go', async () => {
    await withEnv({ TEMPORAL_CLI_PATH: undefined, PATH: emptyDir, TEMPORAL_CLI_DOWNLOAD_URL: '' }, async () => {
      const attempt = findOrBuildTemporalCli({ cacheDir: path.join(tmp, 'empty-cache') });
      await expect(attempt).rejects.toThrow(/TEMPORAL_CLI_PATH.*PATH.*empty-cache.*Go/s);
    });
  });
});

describe('findOrBuildTemporalCli download', () => {
  let tmp: string;
  let archive: Buffer;
  let emptyDir: string;
  const servers: http.Server[] = [];
  const sockets: net.Socket[] = [];

  /** A local server answering every request with `handle`; its URL. */
  async function serve(handle: http.RequestListener): Promise<string> {
    const server = http.createServer(handle);
    server.on('connection', (socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/cli/archive/v1.5.1?platform=linux`;
  }

  /** Resolves the CLI with only the download left to try (no TEMPORAL_CLI_PATH, no temporal and no go on PATH). */
  async function resolveWith(url: string | undefined, cacheDir: string, logs: string[]) {
    const began = Date.now();
    const result = await withEnv({ TEMPORAL_CLI_PATH: undefined, PATH: emptyDir, TEMPORAL_CLI_DOWNLOAD_URL: url }, () =>
      findOrBuildTemporalCli({ cacheDir, log: (m) => logs.push(m) }).then(
        (bin) => ({ bin, err: undefined }),
        (err: Error) => ({ bin: undefined, err }),
      ),
    );
    return { ...result, ms: Date.now() - began };
  }

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-download-'));
    emptyDir = path.join(tmp, 'empty');
    await fs.mkdir(path.join(tmp, 'release'), { recursive: true });
    await fs.mkdir(emptyDir);
    // The release's layout: the binary at the archive's top, beside its licence.
    await fs.writeFile(
      path.join(tmp, 'release', 'temporal'),
      '#!/bin/sh\necho "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"\n',
      { mode: 0o755 },
    );
    await fs.writeFile(path.join(tmp, 'release', 'LICENSE'), 'MIT\n');
    await tar.create({ gzip: true, file: path.join(tmp, 'cli.tar.gz'), cwd: path.join(tmp, 'release') }, [
      'LICENSE',
      'temporal',
    ]);
    archive = await fs.readFile(path.join(tmp, 'cli.tar.gz'));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('downloads the release into the cache, and finds it there the next time', async () => {
    const url = await serve((_req, res) => res.writeHead(200).end(archive));
    const cacheDir = path.join(tmp, 'cache-downloaded');
    const logs: string[] = [];
    const first = await resolveWith(url, cacheDir, logs);
    expect(first.err).toBeUndefined();
    expect(first.bin).toBe(path.join(cacheDir, 'bin', 'temporal'));
    expect(logs.join('\n')).toMatch(/Using Temporal CLI .* \(from a download, \d+\.\d s\): temporal version 1\.5\.1/);
    // Nothing of the download is left beside the binary.
    expect(await fs.readdir(path.join(cacheDir, 'bin'))).toEqual(['temporal']);
    const again: string[] = [];
    expect((await resolveWith(url, cacheDir, again)).bin).toBe(first.bin);
    expect(again.join('\n')).toContain('(from the cache');
  });

  it('fails over within 10 s when the download never answers', async () => {
    const url = await serve(() => undefined); // takes the request, never answers
    const logs: string[] = [];
    const { err, ms } = await resolveWith(url, path.join(tmp, 'cache-silent'), logs);
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    expect(ms).toBeLessThan(10_500);
    expect(logs.join('\n')).toMatch(/No download of the Temporal CLI \(10\.\d s\): no answer within 10 s/);
  }, 20_000);

  it('refuses a TEMPORAL_CLI_DOWNLOAD_URL that is not an http(s) URL, naming it, before any download', async () => {
    for (const bad of ['temporal.download/cli', 'ftp://mirror.example/cli.tar.gz']) {
      const logs: string[] = [];
      const { err } = await resolveWith(bad, path.join(tmp, 'cache-bad-url'), logs);
      expect(err?.message).toBe(
        `TEMPORAL_CLI_DOWNLOAD_URL must be an http(s) URL (or empty, for no download), not "${bad}"`,
      );
      expect(logs.join('\n')).not.toContain('Downloading');
    }
  });

  it('refuses an error page or a broken archive, leaving nothing in the cache', async () => {
    const cacheDir = path.join(tmp, 'cache-broken');
    for (const [status, body, reason] of [
      [404, 'not found', /answered HTTP 404/],
      [200, 'this is not a tar.gz', /could not be read/],
    ] as const) {
      const logs: string[] = [];
      const url = await serve((_req, res) => res.writeHead(status).end(body));
      expect((await resolveWith(url, cacheDir, logs)).err).toBeInstanceOf(TemporalCliNotFoundError);
      expect(logs.join('\n')).toMatch(reason);
    }
    expect(existsSync(path.join(cacheDir, 'bin', 'temporal'))).toBe(false);
  });

  it('on this machine, with no route out, the release download fails over within 10 s (else it works)', async () => {
    const cacheDir = path.join(tmp, 'cache-real');
    const logs: string[] = [];
    const { bin, err, ms } = await resolveWith(undefined, cacheDir, logs);
    if (bin) {
      // A machine that reaches temporal.download: the pinned release itself.
      expect(logs.join('\n')).toMatch(/from a download.*temporal version 1\.5\.1 /);
    } else {
      expect(err).toBeInstanceOf(TemporalCliNotFoundError);
      expect(ms).toBeLessThanOrEqual(10_000);
      expect(logs.join('\n')).toMatch(/Downloading the Temporal CLI v1\.5\.1 from https:\/\/temporal\.download\//);
      expect(logs.join('\n')).toContain('No download of the Temporal CLI');
    }
  }, 60_000);
});
