// The Temporal databases on PostgreSQL, with the schemas embedded in the server's SQL tool, set up
// on every start: each step is idempotent (an existing database is kept, `setup-schema -v 0.0` skips
// a database already past 0.0, `update-schema` applies only the versions missing), so a first start
// creates everything, a later one changes nothing, and a newer server's schema is applied on upgrade.
// deploy/setup-schema.sh runs the same steps in docker-compose.yml.
import { execFile } from 'child_process';

interface SchemaOptions {
  sqlTool: string;
  port: number;
  user: string;
  password: string;
  log: (msg: string) => void;
}

/** Each database and the embedded schema that goes into it. */
const TEMPORAL_DATABASES = [
  { database: 'temporal', schemaName: 'postgresql/v12/temporal' },
  { database: 'temporal_visibility', schemaName: 'postgresql/v12/visibility' },
] as const;

const PLUGIN = 'postgres12';

function runSqlTool(opts: SchemaOptions, database: string, args: string[]): Promise<void> {
  // The password goes through the environment, not the command line (where `ps` shows it).
  const env = { ...process.env, SQL_PASSWORD: opts.password };
  const fullArgs = ['--plugin', PLUGIN, '--ep', '127.0.0.1', '-p', String(opts.port), '-u', opts.user];
  fullArgs.push('--db', database, ...args);
  return new Promise((resolve, reject) => {
    execFile(opts.sqlTool, fullArgs, { env, timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`temporal-sql-tool ${fullArgs.join(' ')} failed:\n${stderr || stdout || err.message}`));
      else resolve();
    });
  });
}

export async function setUpSchemas(opts: SchemaOptions): Promise<void> {
  opts.log('Setting up the Temporal databases and schemas in PostgreSQL…');
  for (const { database, schemaName } of TEMPORAL_DATABASES) {
    // `create` refuses a database that exists, which is what a second start finds.
    await runSqlTool(opts, database, ['create']).catch((err: Error) => {
      if (!/already exists/.test(err.message)) throw err;
    });
    // Version 0.0 makes the tool's bookkeeping tables; update-schema adds the real schema.
    await runSqlTool(opts, database, ['setup-schema', '-v', '0.0']);
    await runSqlTool(opts, database, ['update-schema', '--schema-name', schemaName]);
  }
}
