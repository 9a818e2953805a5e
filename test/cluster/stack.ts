// The cluster suite's stack: an emulator of its own (the fault suite's starting state and clock),
// the production topology in a temporary folder on free ports, and two worker processes.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster, type ClusterHandle } from '../../src/cluster/cluster';
import { DEFAULT_POSTGRES_PASSWORD, freeServerPorts } from '../../src/devserver/server-config';
import { startWorkerPool, type WorkerPool } from '../../src/cluster/workers';
import { getFreePort } from '../../src/devserver/processes';
import { DEV_API_KEY, startEmulator } from '@platform-ops/emulator';
import { ensureRunKey } from '../../bench/support/stack';
import { BATCH_PER_REQUEST_MS, CHAOS_CLOCK_SPEED, chaosFixtures } from '../../bench/chaos/workload';
import { emulatorAdmin } from '../helpers/emulator';
import { cleanEnv } from '../helpers/processes';

export interface ClusterStack {
  cluster: ClusterHandle;
  /** Two workers of build A_BUILD, the deployment's first, so current. */
  workers: WorkerPool;
  /** Two more workers of `buildId`, beside the others; their logs are `<buildId>-<n>.log`. */
  startWorkers(buildId: string): Promise<WorkerPool>;
  emulatorUrl: string;
  /** The cluster's folder: PostgreSQL's data, every log. */
  dataDir: string;
  postgres: { port: number; password: string };
  close(): Promise<void>;
}

/** The build of the suite's first workers. */
export const A_BUILD = 'cluster-a';

const log = (msg: string) => process.stderr.write(`[cluster suite] ${msg}\n`);

/** The stack for `runs`, each a wave of the fault suite's workload with the instances and members it needs. */
export async function startClusterStack(runs: string[], perType: number): Promise<ClusterStack> {
  // The workers inherit the suite's key, and the suite's clients read it (loadDataConverter).
  ensureRunKey('cluster-suite');
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', clockSpeed: CHAOS_CLOCK_SPEED });
  await emulatorAdmin(emulator.url, 'POST', '/fixtures', chaosFixtures(DEV_API_KEY, runs, perType));
  await emulatorAdmin(emulator.url, 'PUT', '/batches/settings', { perRequestMs: BATCH_PER_REQUEST_MS });
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-ops-cluster-'));
  // As root, PostgreSQL runs as the postgres user, who must be able to reach its data directory.
  chmodSync(dir, 0o755);
  let cluster: ClusterHandle | undefined;
  const pools: WorkerPool[] = [];
  const close = async () => {
    await Promise.all(pools.map((p) => p.stop()));
    await cluster?.stop();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const postgres = { port: await getFreePort(), password: DEFAULT_POSTGRES_PASSWORD };
  try {
    cluster = await startCluster({
      dataDir: dir,
      postgresPort: postgres.port,
      postgresPassword: postgres.password,
      ports: await freeServerPorts(),
      namespace: 'default',
      log,
    });
    const { address, logDir } = cluster;
    const startWorkers = async (buildId: string) => {
      const pool = await startWorkerPool({
        count: 2,
        name: buildId,
        env: cleanEnv({
          TEMPORAL_ADDRESS: address,
          TEMPORAL_NAMESPACE: 'default',
          PLATFORM_BASE_URL: emulator.url,
          PLATFORM_API_KEY: DEV_API_KEY,
          WORKER_SHUTDOWN_GRACE_SECONDS: '5',
          WORKER_BUILD_ID: buildId,
          ARTIFACT_DIR: path.join(dir, 'artifacts'),
        }),
        logDir,
        log,
      });
      pools.push(pool);
      return pool;
    };
    const workers = await startWorkers(A_BUILD);
    return { cluster, workers, startWorkers, emulatorUrl: emulator.url, dataDir: dir, postgres, close };
  } catch (err) {
    await close();
    throw err;
  }
}
