// A Nexus start through a server restart: callers in another namespace start generations through the endpoint, and the
// test's own dev server (on a SQLite file, so it comes back with its state) is stopped and started again while their
// starts are in flight. A transient failure on the way is one the callers' server tries again with the same request
// id: every caller gets its run's result, one run per key, one paid submit per prompt.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { idempotentWorkflowId, SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { findOrBuildClusterBinaries } from '../../src/devserver/temporal-programs';
import { startDevServer, type DevServerHandle, type DevServerOptions } from '../../src/devserver/dev-server';
import { getFreePort, sleep } from '../../src/devserver/processes';
import { CALLERS_NAMESPACE, setUpNexus } from '../../src/nexus/setup';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, encryptingConverter, uniqueId, withWorker } from '../helpers/temporal';

const CALLS = 8;
const dataConverter = encryptingConverter();

let emulator: TestEmulator;
let serverOptions: DevServerOptions;
let server: DevServerHandle;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
  serverOptions = {
    binaries: await findOrBuildClusterBinaries(() => {}),
    port: await getFreePort(),
    dbFile: path.join(mkdtempSync(path.join(tmpdir(), 'nexus-restart-')), 'temporal.sqlite'),
    headless: true,
    searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
  };
  server = await startDevServer(serverOptions);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await emulator?.close();
});

type Paid = { paid: { byRoute: Record<string, Record<string, number>> } };

it(
  'gives every caller its run through a dev server restart mid-start: one run per key, one paid submit each',
  () =>
    withWorker(
      'nexus-restart',
      async (ctx) => {
        const endpoint = uniqueId('nexus-restart');
        await setUpNexus({ ...ctx, endpoint, log: () => undefined });
        const callerQueue = uniqueId('nexus-restart-callers');
        const callerConnection = await NativeConnection.connect({ address: ctx.address });
        const callerWorker = await Worker.create({
          connection: callerConnection,
          namespace: CALLERS_NAMESPACE,
          taskQueue: callerQueue,
          workflowsPath: path.resolve(__dirname, '../../lib/src/nexus/caller-workflow.js'),
          bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
          dataConverter,
        });
        const callerRun = callerWorker.run();
        const caller = new Client({
          connection: await Connection.connect({ address: ctx.address }),
          namespace: CALLERS_NAMESPACE,
          dataConverter,
        });
        try {
          const runs = Array.from({ length: CALLS }, (_, i) => ({
            key: uniqueId(`restart-${i}`),
            prompt: uniqueId('a'),
          }));
          const callers: WorkflowHandle[] = [];
          for (const [i, { key, prompt }] of runs.entries()) {
            callers.push(
              await caller.workflow.start('nexusCaller', {
                taskQueue: callerQueue,
                workflowId: uniqueId('caller'),
                args: [
                  {
                    workflowType: 'mediaGeneration',
                    endpoint,
                    timeoutSeconds: 600,
                    start: {
                      idempotencyKey: key,
                      input: {
                        operation: 'text-to-video',
                        request: { prompt: `${prompt} [emulator:duration=3000]`, duration: 5 },
                        polling: { minIntervalMs: 200, maxIntervalMs: 500 },
                      },
                    },
                  },
                ],
              }),
            );
            // The restart strikes with half the starts on their way and half not yet sent.
            if (i === CALLS / 2 - 1) {
              await sleep(150);
              await server.stop();
              server = await startDevServer(serverOptions);
            }
          }
          const results = await Promise.all(callers.map((h) => h.result()));
          for (const [i, { key }] of runs.entries()) {
            const run = ctx.client.workflow.getHandle(idempotentWorkflowId('mediaGeneration', key));
            expect(await run.result()).toEqual(results[i]);
          }
          let ours = 0;
          for await (const _ of ctx.client.workflow.list({ query: `WorkflowType = 'mediaGeneration'` })) ours++;
          expect(ours).toBe(CALLS);
          const paid = (await emulator.admin<Paid>('GET', '/counters')).paid.byRoute.submitTextToVideo ?? {};
          for (const { prompt } of runs) {
            const subject = Object.keys(paid).find((s) => s.startsWith(prompt));
            expect([subject, paid[subject ?? '']]).toEqual([expect.any(String), 1]);
          }
        } finally {
          callerWorker.shutdown();
          await callerRun;
          await callerConnection.close();
          await caller.connection.close();
        }
      },
      { address: server.address, platform: emulatorPlatform(emulator.url), dataConverter },
    ),
  300_000,
);
