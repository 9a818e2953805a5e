// Faults survived on the production topology (npm run test:cluster, not part of npm test): the
// cluster comes up from nothing, and with 204 workflows in flight each time (17 of each type), it loses
// a worker (SIGKILL), has its Temporal server restarted, loses PostgreSQL for 30 s, has both workers
// restarted one after the other, has every run reset by one batch operation by query, and has a new
// build rolled out beside the running one (the deploy run below). Every time: every workflow
// completes, nothing paid is submitted twice, no budget reservation is left held. The figures are
// printed as a table and written to bench-results/cluster-faults.json. Last, with payload encryption on throughout,
// nothing a customer wrote is found in a dump of the database or in any log.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import path from 'node:path';
import { startClusterStack, type ClusterStack } from './stack';
import { DEPLOY_RUN, deployRun, type DeployFigures } from './deploy';
import { encryptionScan } from './encryption';
import { PER_TYPE, runWithFault, type RunFigures } from './workload';
import { resetByQuery } from '../../src/starter/commands/bulk';
import { CHAOS_TYPES } from '../../bench/chaos/workload';
import { loadDataConverter } from '@platform-ops/client';

const POSTGRES_DOWN_MS = 30_000;
// Let the workflows get going (submitted, polling, reserved) before the fault.
const IN_FLIGHT_MS = 4_000;
const RESET_AFTER_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[cluster suite] ${msg}\n`);

const RUNS: Array<[string, (stack: ClusterStack) => Promise<void>]> = [
  [
    'worker-sigkill',
    async ({ workers }) => {
      await sleep(IN_FLIGHT_MS);
      await workers.kill(0);
    },
  ],
  [
    'server-restart',
    async ({ cluster }) => {
      await sleep(IN_FLIGHT_MS);
      await cluster.restartServer();
    },
  ],
  [
    'postgres-down-30s',
    async ({ cluster }) => {
      await sleep(IN_FLIGHT_MS);
      await cluster.stopPostgres();
      await sleep(POSTGRES_DOWN_MS);
      await cluster.startPostgres();
    },
  ],
  [
    'rolling-worker-restart',
    async ({ workers }) => {
      await sleep(IN_FLIGHT_MS);
      await workers.restart(0, 'drain');
      await workers.restart(1, 'drain');
    },
  ],
  [
    'bulk-reset',
    async ({ cluster }) => {
      // Sooner than the other faults: most runs of the quicker types end within a few seconds.
      await sleep(RESET_AFTER_MS);
      // Every run of the wave still at work, reset to its first workflow task by one batch operation by query,
      // as an operator does after a bad deploy (`incident reset --query … --to first-task`).
      const connection = await Connection.connect({ address: cluster.address });
      try {
        const client = new Client({ connection, namespace: 'default', dataConverter: loadDataConverter() });
        const query = "WorkflowId STARTS_WITH 'bulk-reset-' AND ExecutionStatus = 'Running'";
        const batch = await resetByQuery(client, { query, to: 'first-task', reason: 'cluster suite: bulk reset' }, log);
        // A batch that reset few runs tests little: fail rather than pass unproven.
        if ((batch?.end?.completed ?? 0) < (PER_TYPE * CHAOS_TYPES.length) / 4)
          throw new Error(`the bulk reset: ${JSON.stringify(batch)}`);
      } finally {
        await connection.close();
      }
    },
  ],
];

let stack: ClusterStack;
const figures: RunFigures[] = [];
let deployFigures: DeployFigures | undefined;

beforeAll(async () => {
  stack = await startClusterStack([...RUNS.map(([run]) => run), DEPLOY_RUN], PER_TYPE);
}, 15 * 60_000);

afterAll(async () => {
  await stack?.close();
  if (figures.length === 0) return;
  console.table(figures);
  const dir = path.join(__dirname, '..', '..', 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'cluster-faults.json'),
    `${JSON.stringify({ at: new Date().toISOString(), figures, deploy: deployFigures }, null, 2)}\n`,
  );
}, 120_000);

test.each(RUNS)('%s: every workflow completes, none paid twice, no reservation leaked', async (run, fault) => {
  const result = await runWithFault(stack.cluster.address, stack.emulatorUrl, run, () => fault(stack));
  figures.push(result);
  // The worker killed in the first run comes back for the next ones (before any expectation can stop us).
  if (!stack.workers.workers[0].isRunning()) await stack.workers.restart(0, 'kill');
  expect(result).toEqual({
    ...result,
    completed: result.workflows,
    failed: 0,
    failedBy: {},
    lost: 0,
    duplicatePaidSubmissions: 0,
    leakedReservations: 0,
  });
});

test(
  'deploy: build B rolls out while the mix runs on A; pinned runs finish on A, new runs start on B, A is retired',
  async () => {
    deployFigures = await deployRun(stack);
    figures.push(deployFigures.run);
    console.table([deployFigures.builds]);
    expect(deployFigures.run).toEqual({
      ...deployFigures.run,
      completed: deployFigures.run.workflows,
      failed: 0,
      failedBy: {},
      lost: 0,
      duplicatePaidSubmissions: 0,
      leakedReservations: 0,
    });
    expect(deployFigures.builds).toEqual({
      ...deployFigures.builds,
      // Every PINNED run of the mix finished on A, every new run on B; the ledger (AUTO_UPGRADE) moved to B.
      pinnedNotOnA: 0,
      newRunsNotOnB: 0,
      ledgerBuild: 'cluster-b',
      nondeterminismInLogs: 0,
      retired: true,
    });
  },
  20 * 60_000,
);

test('encryption: no prompt, refused prompt, decision state, batch line or output URL in pg_dump or any log', async () => {
  const scan = await encryptionScan(stack);
  console.table(scan.found);
  // The control is found, so a search that finds nothing has read the runs.
  expect(scan.clearInDump).toBeGreaterThan(0);
  expect(scan.logFiles).toBeGreaterThan(2);
  expect(Object.keys(scan.found).length).toBeGreaterThan(4);
  for (const [what, found] of Object.entries(scan.found))
    expect({ what, ...found }).toEqual({ what, dump: 0, logs: 0 });
});
