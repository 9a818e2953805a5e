// Customers' content never reaches Temporal's store in the clear: runs with unique markers in a generation's prompt,
// a refused prompt, a decision's state and a batch's request lines, on a dev server of this test's own with its
// SQLite file, then the file searched byte for byte. A run written with encryption off finds its marker in the same
// file, so the search can fail. And a key rotation: a run begun under key A completes on workers moved to key B.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { dataConverterOf, Keyring, SEARCH_ATTRIBUTE_DEFINITIONS, WorkflowType } from '@platform-ops/client';
import { findOrBuildClusterBinaries } from '../../src/devserver/temporal-programs';
import { devServerDir, startDevServer, type DevServerHandle } from '../../src/devserver/dev-server';
import { getFreePort } from '../../src/devserver/processes';
import { generation, marker, occurrencesIn, runMarkerWorkflows, startRun, type MarkerRuns } from '../helpers/markers';
import { startNode, waitFor, workerProcessEnv } from '../helpers/processes';
import { encryptingConverter, uniqueId, withWorker } from '../helpers/temporal';

const key = () => randomBytes(32).toString('base64');

/** How many times `text` occurs in the server's SQLite file and its journals. */
function occurrences(dbFile: string, text: string): number {
  let count = 0;
  const dir = path.dirname(dbFile);
  const files = readdirSync(dir).filter(
    (f) => f.startsWith(path.basename(dbFile)) && statSync(path.join(dir, f)).isFile(),
  );
  expect(files).toContain(path.basename(dbFile));
  for (const name of files) count += occurrencesIn(readFileSync(path.join(dir, name)), text);
  return count;
}

describe('payload encryption on a real server', () => {
  let server: DevServerHandle;
  let dbFile: string;

  beforeAll(async () => {
    dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'encrypted-store-')), 'temporal.sqlite');
    server = await startDevServer({
      binaries: await findOrBuildClusterBinaries(() => {}),
      port: await getFreePort(),
      dbFile,
      headless: true,
      searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
    });
  }, 120_000);

  afterAll(() => server?.stop());

  it('leaves no prompt, refused prompt, decision state, batch line or output URL readable in the store, the logs or the metrics; one written in the clear is', async () => {
    const clear = marker('clear');
    // The encrypted runs on a worker process as deployed, logging at its most verbose, its metrics on.
    const taskQueue = uniqueId('encrypted');
    const metricsPort = await getFreePort();
    const worker = startNode(
      'worker.js',
      workerProcessEnv(taskQueue, metricsPort, {
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: 'default',
        LOG_LEVEL: 'DEBUG',
        PAYLOAD_KEYS: process.env.PAYLOAD_KEYS!,
        ARTIFACT_DIR: mkdtempSync(path.join(tmpdir(), 'encrypted-artifacts-')),
      }),
    );
    let metrics = '';
    let markers: MarkerRuns['markers'] | undefined;
    let outputUrls: string[] = [];
    const connection = await Connection.connect({ address: server.address });
    try {
      await waitFor(() => worker.output().includes('Worker started'), 60_000, 'the worker');
      ({ markers, outputUrls } = await runMarkerWorkflows({
        client: new Client({ connection, dataConverter: encryptingConverter() }),
        taskQueue,
      }));
      metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    } finally {
      worker.child.kill('SIGTERM');
      await connection.close();
    }
    // The control: the same kind of run, written with encryption off, is found where the others are not.
    await withWorker(
      'clear',
      async (ctx) => {
        const run = await startRun(ctx, WorkflowType.mediaGeneration, generation(clear));
        expect(await run.result()).toMatchObject({ taskId: expect.any(String) });
      },
      { address: server.address, dataConverter: dataConverterOf(undefined) },
    );
    await server.stop();
    expect(occurrences(dbFile, clear)).toBeGreaterThan(0);
    // The worker did log and count these runs, so a scan that finds nothing has read something.
    expect(worker.output()).toContain('Kept task output');
    expect(metrics).toContain('platform_');
    const serverLog = readFileSync(path.join(devServerDir(dbFile), 'temporal-server.log'), 'utf8');
    const found = (text: string) => ({
      store: occurrences(dbFile, text),
      workerLog: worker.output().split(text).length - 1,
      serverLog: serverLog.split(text).length - 1,
      metrics: metrics.split(text).length - 1,
    });
    const none = { store: 0, workerLog: 0, serverLog: 0, metrics: 0 };
    expect(Object.fromEntries(Object.entries(markers).map(([what, text]) => [what, found(text)]))).toEqual({
      prompt: none,
      refused: none,
      state: none,
      batchLine: none,
    });
    // An output URL (the customer's media, often with its access token) is neither logged nor counted.
    expect(outputUrls.length).toBeGreaterThan(0);
    for (const url of outputUrls) expect({ url, ...found(url) }).toEqual({ url, ...none });
  }, 180_000);

  it('rotates keys: a run begun under key A completes on workers moved to B, A kept for decoding', async () => {
    const a = Keyring.of('test', [['rotation-a', key()]]);
    const [aId, aKey] = ['rotation-a', a.key('rotation-a')!.toString('base64')];
    const b = Keyring.of('test', [
      ['rotation-b', key()],
      [aId, aKey],
    ]);
    const taskQueue = `rotation-${randomUUID().slice(0, 8)}`;
    // Long enough (30 s emulated, 3 s here) that the worker of A stops with the task still running.
    const prompt = `${marker('rotation')} [emulator:duration=30000]`;
    const workflowId = await withWorker(
      'rotation-a',
      async (ctx) => {
        const handle = await startRun(ctx, WorkflowType.mediaGeneration, generation(prompt));
        return handle.workflowId;
      },
      { taskQueue, dataConverter: dataConverterOf(a) },
    );
    await withWorker(
      'rotation-b',
      async ({ client }) => {
        const result = await client.workflow.getHandle(workflowId).result();
        expect(result).toMatchObject({ taskId: expect.any(String) });
        // What B's workers wrote is under B; what A wrote before still reads.
        const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
        const keyIds = new Set(
          (events ?? []).flatMap((e) =>
            [
              e.workflowExecutionStartedEventAttributes?.input,
              e.workflowExecutionCompletedEventAttributes?.result,
            ].flatMap((p) =>
              (p?.payloads ?? []).map((x) => Buffer.from(x.metadata?.['encryption-key-id'] ?? []).toString()),
            ),
          ),
        );
        expect([...keyIds].sort()).toEqual(['rotation-a', 'rotation-b']);
      },
      { taskQueue, dataConverter: dataConverterOf(b) },
    );
  }, 120_000);
});
