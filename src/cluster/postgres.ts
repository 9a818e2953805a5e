// PostgreSQL for the cluster: Debian's package (installed when absent), with a data directory and a
// port of the cluster's own, so a system cluster on the machine is never touched. PostgreSQL refuses
// to run as root, so as root its programs run as the `postgres` user the package creates.
import { execFile } from 'child_process';
import { existsSync, promises as fs, readdirSync } from 'fs';
import * as path from 'path';
import { findOnPath } from '../devserver/go-install';
import { startManagedProcess, type ManagedProcess } from './managed-process';
import { POSTGRES_MAJOR } from './versions';

const POSTGRES_USER_ACCOUNT = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;

interface PostgresOptions {
  /** Holds the data directory (`data/`) and the log. */
  dir: string;
  port: number;
  /** The superuser the server connects as, with its password. */
  user: string;
  password: string;
  log: (msg: string) => void;
}

export interface PostgresHandle {
  port: number;
  dataDir: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

function exec(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  return new Promise<string>((resolve, reject) => {
    execFile(
      file,
      args,
      { env: opts.env, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      },
    );
  });
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** `[file, args]` that run a PostgreSQL program as a user PostgreSQL accepts. */
function asPostgres(file: string, args: string[]): [string, string[]] {
  if (!isRoot()) return [file, args];
  // setpriv execs in place (no intermediate process), so signals reach PostgreSQL itself.
  const user = POSTGRES_USER_ACCOUNT;
  return ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', file, ...args]];
}

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const preferred = path.join(root, String(POSTGRES_MAJOR), 'bin');
  if (existsSync(path.join(preferred, 'initdb'))) return preferred;
  if (!existsSync(root)) return undefined;
  // Another major release from the same packages works too (the server supports PostgreSQL 12+).
  const majors = readdirSync(root)
    .filter((d) => existsSync(path.join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && path.join(root, majors[0], 'bin');
}

/** The folder of initdb, postgres and pg_isready, installing Debian's `postgresql` when it is absent. */
export async function findOrInstallPostgres(log: (msg: string) => void): Promise<string> {
  const found = findBinDir();
  if (found) return found;
  const aptGet = await findOnPath('apt-get');
  const sudo = isRoot() ? undefined : await findOnPath('sudo');
  const canSudo =
    sudo !== undefined &&
    (await exec(sudo, ['-n', 'true']).then(
      () => true,
      () => false,
    ));
  if (!aptGet || (!isRoot() && !canSudo)) {
    throw new Error(
      `PostgreSQL is not installed (no ${path.join('/usr/lib/postgresql', String(POSTGRES_MAJOR), 'bin')}), and it ` +
        `cannot be installed from here (${aptGet ? 'not root, and sudo asks for a password' : 'no apt-get'}). ` +
        `Install it with: sudo apt-get install postgresql`,
    );
  }
  const run = (args: string[]) =>
    isRoot()
      ? exec(aptGet, args, { env: aptEnv(), timeoutMs: INSTALL_TIMEOUT_MS })
      : exec(sudo!, ['-n', aptGet, ...args], { env: aptEnv(), timeoutMs: INSTALL_TIMEOUT_MS });
  log('Installing PostgreSQL from Debian’s packages (apt-get install postgresql)…');
  await run(['update']);
  await run(['install', '-y', '--no-install-recommends', 'postgresql']);
  const installed = findBinDir();
  if (!installed) throw new Error('apt-get installed postgresql, but no /usr/lib/postgresql/*/bin/initdb was found.');
  return installed;
}

function aptEnv(): NodeJS.ProcessEnv {
  return { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
}

/** initdb, once: a data directory that exists is reused as it is (a second run keeps its data). */
async function initDataDir(binDir: string, dataDir: string, opts: PostgresOptions): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  opts.log(`Creating a PostgreSQL data directory in ${dataDir}…`);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(opts.dir, '.initdb-password');
  await fs.writeFile(pwFile, `${opts.password}\n`, { mode: 0o600 });
  try {
    if (isRoot()) await exec('chown', ['-R', `${POSTGRES_USER_ACCOUNT}:`, dataDir, pwFile]);
    // Password login over TCP (what the Temporal server uses); the socket, in the data directory
    // itself, is for local tools only.
    const [file, args] = asPostgres(path.join(binDir, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      opts.user,
      `--pwfile=${pwFile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    await exec(file, args);
  } catch (err) {
    // A half-made directory would be taken for a finished one next time.
    await fs.rm(dataDir, { recursive: true, force: true });
    const hint = isRoot()
      ? ` (as root, PostgreSQL runs as the ${POSTGRES_USER_ACCOUNT} user, who must be able to reach ${dataDir})`
      : '';
    throw new Error(`${(err as Error).message}${hint}`);
  } finally {
    await fs.rm(pwFile, { force: true });
  }
}

/** Starts PostgreSQL on 127.0.0.1:port with its data in `<dir>/data`, creating that on first use. */
export async function startPostgres(binDir: string, opts: PostgresOptions): Promise<PostgresHandle> {
  await fs.mkdir(opts.dir, { recursive: true });
  const dataDir = path.join(opts.dir, 'data');
  await initDataDir(binDir, dataDir, opts);
  const [file, args] = asPostgres(path.join(binDir, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(opts.port),
    // Its socket in its own data directory, not /var/run/postgresql of a system cluster.
    '-k',
    dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
    // Each Temporal service keeps pools of 20 + 10 connections; the default 100 is too few.
    '-c',
    'max_connections=300',
  ]);
  const child = startManagedProcess({
    name: 'postgresql',
    file,
    args,
    logFile: path.join(opts.dir, 'postgresql.log'),
    onUnexpectedExit: opts.log,
  });
  await waitReady(binDir, opts.port, child);
  return {
    port: opts.port,
    dataDir,
    process: child,
    // SIGINT is PostgreSQL's "fast" shutdown: open sessions are ended, the data is left consistent.
    stop: async () => {
      await child.stop({ signal: 'SIGINT', graceMs: 30_000 });
    },
  };
}

async function waitReady(binDir: string, port: number, child: ManagedProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (!child.isRunning()) throw new Error(`PostgreSQL did not start; see ${child.logFile}:\n${child.tail()}`);
    const ready = await exec(path.join(binDir, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).then(
      () => true,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`PostgreSQL did not accept connections on port ${port} within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
