// Customers' content on the production topology: the marker runs (test/helpers/markers.ts) on the cluster's
// workers, then a pg_dump of both Temporal databases and every log of the stack (server, workers, PostgreSQL)
// searched for the markers and the generation's output URL. A run whose input a client wrote in the clear is found
// in the same dump, so the search can fail.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { dataConverterOf, loadDataConverter, WorkflowType } from '@platform-ops/client';
import { findOrInstallPostgres } from '../../src/cluster/postgres';
import { POSTGRES_USER } from '../../src/devserver/server-config';
import { generation, marker, occurrencesIn, runMarkerWorkflows, startRun } from '../helpers/markers';
import { filesUnder } from '../../bench/chaos/key-scan';
import type { ClusterStack } from './stack';

const run = promisify(execFile);
const TASK_QUEUE = 'platform-ops';

export interface StoreScan {
  /** Per marker, and per output URL, its occurrences in the dump and in the logs. */
  found: Record<string, { dump: number; logs: number }>;
  /** The run written in the clear: found in the dump. */
  clearInDump: number;
  dumpBytes: number;
  logFiles: number;
}

export async function encryptionScan(stack: ClusterStack): Promise<StoreScan> {
  const connection = await Connection.connect({ address: stack.cluster.address });
  let runs;
  const clear = marker('clear');
  try {
    const client = new Client({ connection, namespace: 'default', dataConverter: loadDataConverter() });
    runs = await runMarkerWorkflows({ client, taskQueue: TASK_QUEUE });
    // The control: started by a client without the codec, read back by one with it (the worker encrypts the rest).
    const plain = new Client({ connection, namespace: 'default', dataConverter: dataConverterOf(undefined) });
    const started = await startRun(
      { client: plain, taskQueue: TASK_QUEUE },
      WorkflowType.mediaGeneration,
      generation(clear),
    );
    await client.workflow.getHandle(started.workflowId).result();
  } finally {
    await connection.close();
  }
  const pgBin = await findOrInstallPostgres(() => undefined);
  const dumps = await Promise.all(
    ['temporal', 'temporal_visibility'].map(async (database) => {
      const { stdout } = await run(
        path.join(pgBin, 'pg_dump'),
        ['-h', '127.0.0.1', '-p', String(stack.postgres.port), '-U', POSTGRES_USER, '--data-only', database],
        { env: { ...process.env, PGPASSWORD: stack.postgres.password }, maxBuffer: 1 << 30, encoding: 'buffer' },
      );
      return stdout;
    }),
  );
  const dump = Buffer.concat(dumps);
  const logs = filesUnder(stack.dataDir).filter((f) => f.endsWith('.log'));
  const logText = Buffer.concat(logs.map((f) => readFileSync(f)));
  const texts = { ...runs.markers, ...Object.fromEntries(runs.outputUrls.map((url, i) => [`outputUrl${i}`, url])) };
  return {
    found: Object.fromEntries(
      Object.entries(texts).map(([what, text]) => [
        what,
        { dump: occurrencesIn(dump, text), logs: occurrencesIn(logText, text) },
      ]),
    ),
    clearInDump: occurrencesIn(dump, clear),
    dumpBytes: dump.length,
    logFiles: logs.length,
  };
}
