// The dev server's database: SQLite through the server's own `sqlite` plugin, in a file or in memory.
import { randomUUID } from 'crypto';
import { promises as fs } from 'fs';
import * as path from 'path';
import { findProjectRoot } from '../config/settings';
import { exec } from './processes';

/** The pragmas the server's config template passes on; it has no place for others. */
export interface SqlitePragmas {
  journal_mode?: string;
  synchronous?: string;
  busy_timeout?: string;
}

/** Server 1.32.1's schema/sqlite/version.go. */
const SQLITE_SCHEMA_VERSION = '0.11';
/** The CLI 1.5.1 dev server's files were created at this schema without recording a version. */
const CLI_SCHEMA_VERSION = '0.10';
/** The SQL tool takes SQLite's schema updates from a folder only. */
const SCHEMA_UPDATES_DIR = path.join('deploy', 'sqlite-schema');
const SQL_TOOL_TIMEOUT_MS = 60_000;
const PRAGMAS = ['journal_mode', 'synchronous', 'busy_timeout'];

/** `dbFile`, else a database in memory; one database holds the workflows and visibility. */
export function sqliteServerEnv(dbFile: string | undefined, pragmas: SqlitePragmas = {}): NodeJS.ProcessEnv {
  const unknown = Object.keys(pragmas).filter((k) => !PRAGMAS.includes(k));
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
    SQLITE_SETUP: 'true',
  };
  for (const [pragma, value] of Object.entries(pragmas) as Array<[string, string | undefined]>)
    if (value !== undefined) env[`SQLITE_${pragma.toUpperCase()}`] = value;
  return env;
}

/**
 * A new file gets the SQL tool's version tables (the server creates the rest); a file written before is updated to
 * the server's schema, once recorded at its version. Every step is idempotent.
 */
export async function prepareSqliteFile(sqlTool: string, dbFile: string, log: (msg: string) => void): Promise<void> {
  const written = await fs.stat(dbFile).then(
    (s) => s.size > 0,
    () => false,
  );
  // The tool logs what it did on stderr.
  const sql = (...args: string[]) =>
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
