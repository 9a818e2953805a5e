// PostgreSQL for the cluster: Debian's package (installed when absent), with a data directory and port of its own.
// It refuses to run as root: as root, it runs as the package's `postgres`.
import { existsSync, promises as fs, readdirSync } from 'fs';
import * as path from 'path';
import { exec, findOnPath, startManagedProcess, type ManagedProcess } from '../devserver/processes';
import { DB_PLUGIN } from '../devserver/server-config';
import { POSTGRES_MAJOR } from '../devserver/versions';

const POSTGRES_USER_ACCOUNT = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;

interface PostgresOptions {
  /** Holds `data/` and the log. */
  dir: string;
  port: number;
  user: string;
  password: string;
  log: (msg: string) => void;
}

const isRoot = (): boolean => process.getuid?.() === 0;

function asPostgres(file: string, args: string[]): [string, string[]] {
  if (!isRoot()) return [file, args];
  // setpriv execs in place, so signals reach PostgreSQL itself.
  const user = POSTGRES_USER_ACCOUNT;
  return ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', file, ...args]];
}

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const preferred = path.join(root, String(POSTGRES_MAJOR), 'bin');
  if (existsSync(path.join(preferred, 'initdb'))) return preferred;
  if (!existsSync(root)) return undefined;
  // Another major release works too.
  const majors = readdirSync(root)
    .filter((d) => existsSync(path.join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && path.join(root, majors[0], 'bin');
}

/** The folder of initdb, postgres and pg_isready, installing them when absent. */
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
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const [file, sudoArgs] = isRoot() ? [aptGet, []] : [sudo!, ['-n', aptGet]];
  const run = (...args: string[]) => exec(file, [...sudoArgs, ...args], { env, timeoutMs: INSTALL_TIMEOUT_MS });
  log('Installing PostgreSQL from Debian’s packages (apt-get install postgresql)…');
  await run('update');
  await run('install', '-y', '--no-install-recommends', 'postgresql');
  const installed = findBinDir();
  if (!installed) throw new Error('apt-get installed postgresql, but no /usr/lib/postgresql/*/bin/initdb was found.');
  return installed;
}

/** Once: a data directory that exists is reused as it is. */
async function initDataDir(binDir: string, dataDir: string, opts: PostgresOptions): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  opts.log(`Creating a PostgreSQL data directory in ${dataDir}…`);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(opts.dir, '.initdb-password');
  await fs.writeFile(pwFile, `${opts.password}\n`, { mode: 0o600 });
  try {
    if (isRoot()) await exec('chown', ['-R', `${POSTGRES_USER_ACCOUNT}:`, dataDir, pwFile]);
    // Password login over TCP; the socket, in the data directory itself, is for local tools only.
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

/** On 127.0.0.1:port with its data in `<dir>/data`. */
export async function startPostgres(binDir: string, opts: PostgresOptions): Promise<ManagedProcess> {
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
    name: 'PostgreSQL',
    file,
    args,
    logFile: path.join(opts.dir, 'postgresql.log'),
    log: opts.log,
    // PostgreSQL's "fast" shutdown.
    stopSignal: 'SIGINT',
    graceMs: 30_000,
  });
  const isReady = path.join(binDir, 'pg_isready');
  await child.ready(() => exec(isReady, ['-h', '127.0.0.1', '-p', String(opts.port)]), READY_TIMEOUT_MS);
  return child;
}

/** Each Temporal database and the schema, embedded in the server's SQL tool, that goes into it. */
const TEMPORAL_DATABASES = [
  { database: 'temporal', schemaName: 'postgresql/v12/temporal' },
  { database: 'temporal_visibility', schemaName: 'postgresql/v12/visibility' },
] as const;

/** On every start: each step is idempotent, and a newer server's schema is applied on upgrade (as deploy/setup-schema.sh). */
export async function setUpSchemas(opts: Omit<PostgresOptions, 'dir'> & { sqlTool: string }): Promise<void> {
  opts.log('Setting up the Temporal databases and schemas in PostgreSQL…');
  // The password goes through the environment, not the command line (where `ps` shows it).
  const env = { ...process.env, SQL_PASSWORD: opts.password };
  const connect = ['--plugin', DB_PLUGIN, '--ep', '127.0.0.1', '-p', String(opts.port), '-u', opts.user];
  const sql = (database: string, ...args: string[]) =>
    exec(opts.sqlTool, [...connect, '--db', database, ...args], { env });
  for (const { database, schemaName } of TEMPORAL_DATABASES) {
    await sql(database, 'create').catch((err: Error) => {
      if (!/already exists/.test(err.message)) throw err;
    });
    // 0.0: the tool's bookkeeping tables only.
    await sql(database, 'setup-schema', '-v', '0.0');
    await sql(database, 'update-schema', '--schema-name', schemaName);
  }
}
