// The cluster suite's stack: an emulator of its own (with an instance per workflow that needs one),
// the production topology in a temporary folder on free ports, and two worker processes.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster, type ClusterHandle } from '../../src/cluster/cluster';
import { DEFAULT_POSTGRES_PASSWORD, MAX_SERVER_PORT, type ServerPorts } from '../../src/cluster/server-config';
import { startWorkerPool, type WorkerPool } from '../../src/cluster/workers';
import { getFreePort } from '../../src/devserver';
import { DEV_API_KEY } from '../../src/emulator/config';
import { defaultFixtures } from '../../src/emulator/fixtures';
import { startEmulator } from '../../src/emulator/server';
import { cleanEnv } from '../helpers/processes';

export interface ClusterStack {
  cluster: ClusterHandle;
  workers: WorkerPool;
  emulatorUrl: string;
  close(): Promise<void>;
}

const log = (msg: string) => process.stderr.write(`[cluster suite] ${msg}\n`);

/** A port below the server's limit that is free now (the OS's own picks are all above it). */
async function lowFreePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * (MAX_SERVER_PORT - 20_000));
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

async function freePorts(): Promise<ServerPorts> {
  const keys: Array<keyof ServerPorts> = [
    'frontend',
    'frontendHttp',
    'history',
    'matching',
    'worker',
    'frontendMembership',
    'historyMembership',
    'matchingMembership',
    'workerMembership',
  ];
  const ports = {} as ServerPorts;
  const taken = new Set<number>();
  for (const key of keys) ports[key] = await lowFreePort(taken);
  return ports;
}

export async function startClusterStack(instanceIds: string[]): Promise<ClusterStack> {
  const builtIn = defaultFixtures([DEV_API_KEY]).instances;
  const template = builtIn.find((i) => i.id === 'inst-demo-1')!;
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    clockSpeed: 1,
    fixtures: { instances: [...builtIn, ...instanceIds.map((id) => ({ ...template, id, name: id }))] },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'platform-ops-cluster-'));
  // As root, PostgreSQL runs as the postgres user, who must be able to reach its data directory.
  chmodSync(dir, 0o755);
  let cluster: ClusterHandle | undefined;
  let workers: WorkerPool | undefined;
  const close = async () => {
    await workers?.stop();
    await cluster?.stop();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    cluster = await startCluster({
      dataDir: dir,
      postgresPort: await getFreePort(),
      postgresPassword: DEFAULT_POSTGRES_PASSWORD,
      ports: await freePorts(),
      namespace: 'default',
      log,
    });
    workers = await startWorkerPool({
      count: 2,
      env: cleanEnv({
        TEMPORAL_ADDRESS: cluster.address,
        TEMPORAL_NAMESPACE: 'default',
        PLATFORM_BASE_URL: emulator.url,
        PLATFORM_API_KEY: DEV_API_KEY,
        WORKER_SHUTDOWN_GRACE_SECONDS: '5',
        ARTIFACT_DIR: path.join(dir, 'artifacts'),
      }),
      logDir: cluster.logDir,
      log,
    });
    return { cluster, workers, emulatorUrl: emulator.url, close };
  } catch (err) {
    await close();
    throw err;
  }
}
