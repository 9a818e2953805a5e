// Finds a working Temporal CLI, the fastest way first (docs/starter.md#the-temporal-cli), and builds the pinned Go
// programs with `go install` into a project cache folder, under a lock against parallel builds.
import { createWriteStream, promises as fs } from 'fs';
import { hostname } from 'os';
import * as path from 'path';
import { Readable, Transform } from 'stream';
import { pipeline } from 'stream/promises';
import { extract } from 'tar';
import { exec, findOnPath, isAlive, isExecutableFile, sleep, startManagedProcess } from './processes';
import { findProjectRoot } from '../config/settings';

export const TEMPORAL_CLI_VERSION = '1.5.1';

const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
// Without -X, `go install` stamps "0.0.0-DEV"; -s -w strips debug info (unstripped, the binary is ~250 MB).
const GO_LDFLAGS = `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`;
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const VERSION_TIMEOUT_MS = 20_000;

export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
}

/** TEMPORAL_CLI_PATH, PATH, one cached in `cacheDir`, else one downloaded there, else one built there with Go. */
export async function findOrBuildTemporalCli(
  opts: { log?: (msg: string) => void; cacheDir?: string } = {},
): Promise<string> {
  const began = Date.now();
  const log = opts.log ?? (() => undefined);
  const use = (bin: string, source: string): Promise<string> => verify(bin, source, log, began);
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(findProjectRoot(), '.temporal'));
  const binDir = path.join(cacheDir, 'bin');
  const cached = path.join(binDir, EXE);
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    const resolved = path.resolve(fromEnv);
    if (!(await isExecutableFile(resolved))) {
      throw new Error(`TEMPORAL_CLI_PATH is set to ${resolved}, but that is not an executable file.`);
    }
    return use(resolved, 'TEMPORAL_CLI_PATH');
  }
  const onPath = await findOnPath(EXE);
  if (onPath) return use(onPath, 'PATH');
  if (await isExecutableFile(cached)) return use(cached, 'the cache');
  const url = downloadUrl();
  if (url) {
    const downloaded = await download(url, cached, log).then(
      () => true,
      (err: Error) => {
        log(`No download of the Temporal CLI (${secondsSince(began)}): ${err.message}`);
        return false;
      },
    );
    if (downloaded) return use(cached, 'a download');
  }
  await goInstallWithLock({
    label: `the Temporal CLI v${TEMPORAL_CLI_VERSION}`,
    packages: [`${GO_PACKAGE}@v${TEMPORAL_CLI_VERSION}`],
    ldflags: GO_LDFLAGS,
    binDir,
    binaries: [cached],
    cacheDir,
    log,
    noGo: () =>
      new TemporalCliNotFoundError(
        `The Temporal CLI was not found. Either set TEMPORAL_CLI_PATH to a temporal binary, ` +
          `put \`temporal\` on PATH (see https://docs.temporal.io/cli#install), ` +
          `place a build at ${cached}, let it be downloaded (see the message above), or install Go 1.25+ so that ` +
          `v${TEMPORAL_CLI_VERSION} can be built there from source.`,
      ),
  });
  return use(cached, 'a fresh build');
}

const secondsSince = (t: number): string => `${((Date.now() - t) / 1000).toFixed(1)} s`;

// A machine with no route out fails over to Go within CONNECT_TIMEOUT_MS.
const CONNECT_TIMEOUT_MS = 10_000;
const STALL_TIMEOUT_MS = 15_000;
const MAX_ARCHIVE_BYTES = 200 << 20;

/** TEMPORAL_CLI_DOWNLOAD_URL's (empty: no download), else temporal.download's archive of our release. */
function downloadUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.TEMPORAL_CLI_DOWNLOAD_URL;
  if (configured !== undefined) {
    if (configured.trim() === '') return undefined;
    const protocol = URL.canParse(configured) ? new URL(configured).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw new Error(
        `TEMPORAL_CLI_DOWNLOAD_URL must be an http(s) URL (or empty, for no download), not "${configured}"`,
      );
    }
    return configured;
  }
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform as string];
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  // The Windows archive is a zip.
  if (!platform || !arch) return undefined;
  return `https://temporal.download/cli/archive/v${TEMPORAL_CLI_VERSION}?platform=${platform}&arch=${arch}`;
}

/** Fetches the .tar.gz at `url` and puts its `temporal` at `target`, whole or not at all. */
async function download(url: string, target: string, log: (msg: string) => void): Promise<void> {
  const shown = url.replace(/\?.*$/, '');
  log(`Downloading the Temporal CLI v${TEMPORAL_CLI_VERSION} from ${shown}…`);
  const abort = new AbortController();
  const abortAfter = (ms: number, why: string) => setTimeout(() => abort.abort(new Error(why)), ms);
  let stalled = abortAfter(CONNECT_TIMEOUT_MS, `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`);
  const work = `${target}.download-${process.pid}`;
  await fs.rm(work, { recursive: true, force: true });
  try {
    const res = await fetch(url, { signal: abort.signal, redirect: 'follow' }).catch((err: Error) => {
      // undici's "fetch failed" hides the reason (ENOTFOUND, ECONNREFUSED…) in its cause.
      const cause = err.cause as { code?: string; message?: string } | undefined;
      const reason = cause?.code ?? cause?.message ?? err.message;
      throw new Error(abort.signal.aborted ? String((abort.signal.reason as Error).message) : reason);
    });
    if (!res.ok || !res.body) throw new Error(`${shown} answered HTTP ${res.status}`);
    let bytes = 0;
    const watch = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        clearTimeout(stalled);
        stalled = abortAfter(STALL_TIMEOUT_MS, `stalled for ${STALL_TIMEOUT_MS / 1000} s`);
        done(bytes > MAX_ARCHIVE_BYTES ? new Error(`larger than ${MAX_ARCHIVE_BYTES >> 20} MB`) : null, chunk);
      },
    });
    await fs.mkdir(work, { recursive: true });
    const archive = path.join(work, 'cli.tar.gz');
    await pipeline(Readable.fromWeb(res.body as never), watch, createWriteStream(archive)).catch((err: Error) => {
      throw abort.signal.aborted ? (abort.signal.reason as Error) : err;
    });
    clearTimeout(stalled);
    // A mirror's archive may have the binary in a folder.
    await extract({ file: archive, cwd: work, strict: true, filter: (p) => path.basename(p) === EXE }).catch(
      (err: Error) => {
        throw new Error(`the archive from ${shown} could not be read: ${err.message}`);
      },
    );
    const found = (await fs.readdir(work, { recursive: true })).find((p) => path.basename(p) === EXE);
    const binary = found && path.join(work, found);
    if (!binary || !(await isExecutableFile(binary))) throw new Error(`the archive from ${shown} holds no ${EXE}`);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Within one folder, a rename is atomic: no other process sees half a binary.
    await fs.rename(binary, target);
    log(`Downloaded the Temporal CLI (${(bytes / 1e6).toFixed(1)} MB) into ${path.dirname(target)}`);
  } finally {
    clearTimeout(stalled);
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function verify(bin: string, source: string, log: (msg: string) => void, began: number): Promise<string> {
  const version = (
    await exec(bin, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS }).catch((err: Error) => {
      throw new Error(`Temporal CLI at ${bin} (from ${source}): ${err.message}`);
    })
  ).trim();
  // Another release may work too: the log shows the difference.
  const note = version.includes(`version ${TEMPORAL_CLI_VERSION} `)
    ? ''
    : version.includes('0.0.0-DEV')
      ? ' (a source build without a version stamp)'
      : ` (this project expects ${TEMPORAL_CLI_VERSION})`;
  log(`Using Temporal CLI ${bin} (from ${source}, ${secondsSince(began)}): ${version}${note}`);
  return bin;
}

// The lock holder touches the lock file this often; a lock not touched for LOCK_STALE_MS belongs to a dead build.
const LOCK_HEARTBEAT_MS = 15_000;
const LOCK_STALE_MS = 120_000;
const LOCK_POLL_MS = 1_000;

interface GoInstallSpec {
  label: string;
  packages: string[];
  binDir: string;
  /** What must exist afterwards; when all do, nothing is built. */
  binaries: string[];
  /** Holds the lock file and is the build's working folder. */
  cacheDir: string;
  ldflags?: string;
  /** Run `go` under `nice`, so a long build leaves the machine usable. */
  nice?: boolean;
  log: (msg: string) => void;
  /** The error when something is missing and Go is not on PATH. */
  noGo: () => Error;
}

const allBuilt = async (binaries: string[]): Promise<boolean> =>
  (await Promise.all(binaries.map(isExecutableFile))).every(Boolean);

export async function goInstallWithLock(spec: GoInstallSpec): Promise<void> {
  if (await allBuilt(spec.binaries)) return;
  const go = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go');
  if (!go) throw spec.noGo();
  await fs.mkdir(spec.binDir, { recursive: true });
  const lockFile = path.join(spec.cacheDir, 'build.lock');
  let announcedWait = false;
  for (;;) {
    const release = await tryLock(lockFile);
    if (release) {
      try {
        // Another process may have finished the build before we took the lock.
        if (!(await allBuilt(spec.binaries))) await goInstall(go, spec);
        return;
      } finally {
        await release();
      }
    }
    if (!announcedWait) {
      spec.log(`Another process is building in ${spec.cacheDir} (lock ${lockFile}); waiting for it…`);
      announcedWait = true;
    }
    await removeIfStale(lockFile, spec.log);
    await sleep(LOCK_POLL_MS);
  }
}

/** The lock's release, or undefined when another process holds it. */
async function tryLock(lockFile: string): Promise<(() => Promise<void>) | undefined> {
  const holder = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  try {
    await fs.writeFile(lockFile, holder, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(lockFile, now, now).catch(() => undefined);
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  return async () => {
    clearInterval(heartbeat);
    await fs.rm(lockFile, { force: true });
  };
}

/** Removes a lock not touched for LOCK_STALE_MS, or held by a dead pid on this host. */
async function removeIfStale(lockFile: string, log: (msg: string) => void): Promise<void> {
  const lock = await Promise.all([fs.stat(lockFile), fs.readFile(lockFile, 'utf8')]).catch(() => undefined);
  if (!lock) return; // Released meanwhile.
  const [{ mtimeMs }, content] = lock;
  let holderDead = false;
  try {
    const holder = JSON.parse(content) as { pid?: unknown; host?: unknown };
    if (holder.host === hostname() && typeof holder.pid === 'number') holderDead = !isAlive(holder.pid);
  } catch {
    // Empty or partial: the holder may be between open and write, so only the age counts.
  }
  if (holderDead || Date.now() - mtimeMs > LOCK_STALE_MS) {
    log(`Removing stale build lock ${lockFile}`);
    await fs.rm(lockFile, { force: true });
  }
}

async function goInstall(go: string, spec: GoInstallSpec): Promise<void> {
  const { log } = spec;
  log(`Building ${spec.label} from source with Go; the first build takes several minutes…`);
  const started = Date.now();
  const goArgs = ['install', ...(spec.ldflags ? [`-ldflags=${spec.ldflags}`] : []), ...spec.packages];
  const [file, args] = spec.nice && (await findOnPath('nice')) ? ['nice', ['-n', '10', go, ...goArgs]] : [go, goArgs];
  const child = startManagedProcess({
    name: 'go',
    file,
    args,
    // Outside any Go module, so no go.mod around it influences `go install pkg@version`.
    cwd: spec.cacheDir,
    env: { ...process.env, GOBIN: spec.binDir },
    onLine: (line) => log(`[go] ${line}`),
    // In the terminal's process group: a Ctrl-C stops the build and its compilers.
    detached: false,
  });
  // Compiling is silent for minutes.
  const progress = setInterval(
    () => log(`[go] still building ${spec.label} (${Math.round((Date.now() - started) / 1000)} s)…`),
    30_000,
  );
  const { code } = await child.exited.finally(() => clearInterval(progress));
  if (code !== 0) throw new Error(`\`go ${goArgs.join(' ')}\` failed with exit code ${code}:\n${child.tail()}`);
  log(`Built ${spec.label} in ${Math.round((Date.now() - started) / 1000)} s`);
}
