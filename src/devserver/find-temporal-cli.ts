import { execFile, spawn } from 'child_process';
import { constants as fsConstants, existsSync, promises as fs } from 'fs';
import { hostname } from 'os';
import * as path from 'path';
import { createInterface } from 'readline';

/** The Temporal CLI release we build from source (and expect elsewhere). */
export const TEMPORAL_CLI_VERSION = '1.5.1';

const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
// `go install` leaves the version at "0.0.0-DEV" unless it is injected the way the release build does it;
// -s -w strips debug info like the release build does (unstripped, the binary is ~250 MB).
const GO_LDFLAGS = `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`;
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const VERSION_TIMEOUT_MS = 20_000;
// The lock holder touches the lock file this often; a lock not touched for LOCK_STALE_MS belongs to a dead build.
const LOCK_HEARTBEAT_MS = 15_000;
const LOCK_STALE_MS = 120_000;
const LOCK_POLL_MS = 1_000;

/** Neither TEMPORAL_CLI_PATH, `temporal` on PATH, a cached build nor Go: the caller may fall back to the SDK's download. */
export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
}

export interface FindTemporalCliOptions {
  log?: (msg: string) => void;
  /** Cache folder; the build goes to `<cacheDir>/bin`. Defaults to `<projectRoot>/.temporal`. */
  cacheDir?: string;
}

/**
 * Returns the absolute path of a working `temporal` binary: TEMPORAL_CLI_PATH, then `temporal` on PATH,
 * then a cached build in the project, then a fresh `go install` into that cache.
 */
export async function findOrBuildTemporalCli(opts: FindTemporalCliOptions = {}): Promise<string> {
  const log = opts.log ?? (() => undefined);
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(findProjectRoot(), '.temporal'));
  const binDir = path.join(cacheDir, 'bin');
  const cached = path.join(binDir, EXE);

  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    const resolved = path.resolve(fromEnv);
    if (!(await isExecutableFile(resolved))) {
      throw new Error(`TEMPORAL_CLI_PATH is set to ${resolved}, but that is not an executable file.`);
    }
    return verify(resolved, 'TEMPORAL_CLI_PATH', log);
  }

  const onPath = await findOnPath(EXE);
  if (onPath) return verify(onPath, 'PATH', log);

  if (await isExecutableFile(cached)) return verify(cached, 'cached build', log);

  const go = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go');
  if (!go) {
    throw new TemporalCliNotFoundError(
      `The Temporal CLI was not found. Either set TEMPORAL_CLI_PATH to a temporal binary, ` +
        `put \`temporal\` on PATH (see https://docs.temporal.io/cli#install), ` +
        `place a build at ${cached}, or install Go 1.25+ so that v${TEMPORAL_CLI_VERSION} can be built there from source.`,
    );
  }
  await buildWithLock(go, cacheDir, binDir, cached, log);
  return verify(cached, 'fresh build', log);
}

/** The folder holding package.json; walking up works from both `src/devserver` and compiled `lib/src/devserver`. */
export function findProjectRoot(start: string = __dirname): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json found above ${start}`);
  }
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    // An empty PATH entry means the current directory; skipping it avoids picking up stray binaries.
    if (!dir) continue;
    const candidate = path.resolve(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function verify(bin: string, source: string, log: (msg: string) => void): Promise<string> {
  const version = await new Promise<string>((resolve, reject) => {
    execFile(bin, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout.trim());
      reject(new Error(`Temporal CLI at ${bin} (from ${source}) failed \`--version\`: ${stderr || err.message}`));
    });
  });
  // Another release on PATH may work too; just make the difference visible. `go install` without our -ldflags
  // (e.g. done by hand) reports 0.0.0-DEV.
  const note = version.includes(`version ${TEMPORAL_CLI_VERSION} `)
    ? ''
    : version.includes('0.0.0-DEV')
      ? ' (a source build without a version stamp)'
      : ` (this project expects ${TEMPORAL_CLI_VERSION})`;
  log(`Using Temporal CLI ${bin} (from ${source}): ${version}${note}`);
  return bin;
}

async function buildWithLock(
  go: string,
  cacheDir: string,
  binDir: string,
  cached: string,
  log: (msg: string) => void,
): Promise<void> {
  await fs.mkdir(binDir, { recursive: true });
  const lockFile = path.join(cacheDir, 'build.lock');
  let announcedWait = false;
  for (;;) {
    const lock = await tryLock(lockFile);
    if (lock) {
      try {
        // Another process may have finished the build between our check and taking the lock.
        if (await isExecutableFile(cached)) return;
        await goInstall(go, cacheDir, binDir, log);
        return;
      } finally {
        await lock.release();
      }
    }
    if (!announcedWait) {
      log(`Another process is building the Temporal CLI (lock ${lockFile}); waiting for it…`);
      announcedWait = true;
    }
    await removeIfStale(lockFile, log);
    // Once the lock is gone we take it ourselves and find the other build's binary (or retry if it failed).
    await sleep(LOCK_POLL_MS);
  }
}

interface Lock {
  release(): Promise<void>;
}

async function tryLock(lockFile: string): Promise<Lock | undefined> {
  let handle: fs.FileHandle;
  try {
    // 'wx' = O_CREAT | O_EXCL: exactly one process can create the file.
    handle = await fs.open(lockFile, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  try {
    await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
  } finally {
    await handle.close();
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(lockFile, now, now).catch(() => undefined);
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  return {
    async release() {
      clearInterval(heartbeat);
      await fs.rm(lockFile, { force: true });
    },
  };
}

/** Removes a lock whose holder is gone: not touched for LOCK_STALE_MS, or held by a dead pid on this host. */
async function removeIfStale(lockFile: string, log: (msg: string) => void): Promise<void> {
  let mtimeMs: number;
  let content: string;
  try {
    mtimeMs = (await fs.stat(lockFile)).mtimeMs;
    content = await fs.readFile(lockFile, 'utf8');
  } catch {
    return; // Released meanwhile.
  }
  let holderDead = false;
  try {
    const holder = JSON.parse(content) as { pid?: unknown; host?: unknown };
    if (holder.host === hostname() && typeof holder.pid === 'number') holderDead = !isAlive(holder.pid);
  } catch {
    // Empty or partial content: the holder may be between open and write, so rely on the age check only.
  }
  if (holderDead || Date.now() - mtimeMs > LOCK_STALE_MS) {
    log(`Removing stale Temporal CLI build lock ${lockFile}`);
    await fs.rm(lockFile, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function goInstall(go: string, cacheDir: string, binDir: string, log: (msg: string) => void): Promise<void> {
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} from source with Go; the first build takes several minutes…`);
  const started = Date.now();
  const args = ['install', `-ldflags=${GO_LDFLAGS}`, `${GO_PACKAGE}@v${TEMPORAL_CLI_VERSION}`];
  // cwd outside any Go module, so `go install pkg@version` cannot be influenced by a go.mod around it.
  const child = spawn(go, args, { cwd: cacheDir, env: { ...process.env, GOBIN: binDir }, stdio: 'pipe' });
  const tail: string[] = [];
  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > 30) tail.shift();
    log(`[go] ${line}`);
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  // Go prints only the module downloads; compiling is silent for minutes, so show that we are alive.
  const progress = setInterval(
    () => log(`[go] still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)…`),
    30_000,
  );
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) {
      throw new Error(`\`go ${args.join(' ')}\` failed with exit code ${code}:\n${tail.join('\n')}`);
    }
  } finally {
    clearInterval(progress);
  }
  log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
