// The fallback for a Temporal program with no release to download: `go install` of its pinned module into the
// project cache, under a lock against two builds at once.
import { promises as fs } from 'fs';
import { hostname } from 'os';
import * as path from 'path';
import { findOnPath, isAlive, isExecutableFile, sleep, startManagedProcess } from './processes';

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
