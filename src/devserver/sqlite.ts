// The dev server's database: SQLite through the server's own `sqlite` persistence plugin, configured by the
// environment its embedded config template reads (DB=sqlite), in a file or in memory.
import { randomUUID } from 'crypto';
import { promises as fs } from 'fs';
import * as path from 'path';
import { findProjectRoot } from '../config/settings';
import { exec } from './processes';

/** The pragmas the server's config template passes on (SQLITE_JOURNAL_MODE …); it has no place for others. */
export interface SqlitePragmas {
  journal_mode?: string;
  synchronous?: string;
  busy_timeout?: string;
}

/** The server's SQLite schema (server 1.32.1's schema/sqlite/version.go): what a new file is created at. */
export const SQLITE_SCHEMA_VERSION = '0.11';
/**
 * The schema of the CLI 1.5.1 dev server's files (its server, 1.29.1, has 0.10), which it created without recording
 * a version: such a file is recorded at this version, then updated like any other.
 */
const CLI_SCHEMA_VERSION = '0.10';
/** The server's versioned schema updates since CLI_SCHEMA_VERSION: the SQL tool takes SQLite's from a folder only. */
const SCHEMA_UPDATES_DIR = path.join('deploy', 'sqlite-schema');
const SQL_TOOL_TIMEOUT_MS = 60_000;

/**
 * The server's database settings: `dbFile`, WAL by default (a reader does not wait for the writer); else a database
 * in memory, gone with the process. One database holds the workflows and visibility, as in the CLI's dev server.
 */
export function sqliteServerEnv(dbFile: string | undefined, pragmas: SqlitePragmas = {}): NodeJS.ProcessEnv {
  const unknown = Object.keys(pragmas).filter((k) => !['journal_mode', 'synchronous', 'busy_timeout'].includes(k));
  if (unknown.length > 0) {
    throw new Error(
      `SQLite pragmas ${unknown.join(', ')}: the Temporal server's config takes journal_mode, synchronous and ` +
        'busy_timeout only',
    );
  }
  // The in-memory database is shared by name between the server's connections, so the name is unique per start.
  const name = dbFile ?? `temporal-dev-${randomUUID()}`;
  const env: NodeJS.ProcessEnv = {
    DB: 'sqlite',
    DBNAME: name,
    VISIBILITY_DBNAME: name,
    ...(dbFile ? {} : { SQLITE_MODE: 'memory', SQLITE_CACHE: 'shared' }),
    // A file's tables are created by the server itself when missing (`setup`); one in memory always is.
    SQLITE_SETUP: 'true',
  };
  if (pragmas.journal_mode !== undefined) env.SQLITE_JOURNAL_MODE = pragmas.journal_mode;
  if (pragmas.synchronous !== undefined) env.SQLITE_SYNCHRONOUS = pragmas.synchronous;
  if (pragmas.busy_timeout !== undefined) env.SQLITE_BUSY_TIMEOUT = pragmas.busy_timeout;
  return env;
}

/**
 * Before the server starts on `dbFile`: a new file gets the SQL tool's version tables at the server's schema version
 * (the server then creates the rest); a file written before is updated to the server's schema, once recorded at its
 * version (a file of the CLI's dev server has none). Every step is idempotent.
 */
export async function prepareSqliteFile(sqlTool: string, dbFile: string, log: (msg: string) => void): Promise<void> {
  const written = await fs.stat(dbFile).then(
    (s) => s.size > 0,
    () => false,
  );
  const sql = (...args: string[]) =>
    // The tool logs what it did on stderr.
    exec(sqlTool, ['--plugin', 'sqlite', '--db', dbFile, ...args], { timeoutMs: SQL_TOOL_TIMEOUT_MS, stderr: true });
  if (!written) {
    await sql('setup-schema', '-v', SQLITE_SCHEMA_VERSION);
    return;
  }
  // Refused where a version is recorded already: only a file of the CLI's has none.
  await sql('setup-schema', '-v', CLI_SCHEMA_VERSION).catch((err: Error) => {
    if (!/table schema_version already exists/.test(err.message)) throw err;
  });
  const out = await sql('update-schema', '--schema-dir', path.join(findProjectRoot(), SCHEMA_UPDATES_DIR));
  const updated = /Schema updated from (\S+) to (\S+)/.exec(out);
  if (updated) log(`Updated the schema of ${dbFile} from ${updated[1]} to ${updated[2]}`);
}
