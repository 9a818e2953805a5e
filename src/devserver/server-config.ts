// `npm run cluster`'s settings, and the Temporal server's environment (read by its embedded config template).
// test/deploy/compose.test.ts checks docker-compose.yml on them.
import * as path from 'path';
import { z } from 'zod';
import { findProjectRoot } from '../config/settings';
import { tryListen } from './processes';
import { parseConfig } from '../platform-client/config';

export const DB_PLUGIN = 'postgres12';
/** Fixed for the life of a cluster's data. Four suit two cores. */
const NUM_HISTORY_SHARDS = 4;
export const POSTGRES_USER = 'temporal';
export const DEFAULT_POSTGRES_PASSWORD = 'temporal';
/** Relative to the project root; docker-compose.yml mounts the same file. */
export const DYNAMIC_CONFIG_FILE = path.join('deploy', 'dynamicconfig', 'cluster.yaml');

/** Every port the server listens on: the variable its config template reads, and the server's own default. */
const PORTS = {
  frontend: ['FRONTEND_GRPC_PORT', 7233],
  frontendHttp: ['FRONTEND_HTTP_PORT', 7243],
  history: ['HISTORY_GRPC_PORT', 7234],
  matching: ['MATCHING_GRPC_PORT', 7235],
  worker: ['WORKER_GRPC_PORT', 7239],
  frontendMembership: ['FRONTEND_MEMBERSHIP_PORT', 6933],
  historyMembership: ['HISTORY_MEMBERSHIP_PORT', 6934],
  matchingMembership: ['MATCHING_MEMBERSHIP_PORT', 6935],
  workerMembership: ['WORKER_MEMBERSHIP_PORT', 6939],
} as const;

export type ServerPorts = Record<keyof typeof PORTS, number>;
const PORT_NAMES = Object.keys(PORTS) as Array<keyof ServerPorts>;
export const DEFAULT_SERVER_PORTS = Object.fromEntries(PORT_NAMES.map((k) => [k, PORTS[k][1]])) as ServerPorts;

/** The server keeps its ports in PostgreSQL as smallint: any ephemeral port Linux hands out is above. */
const MAX_SERVER_PORT = 32_767;

/** Every port of the server but those `given`, each free now and below MAX_SERVER_PORT. */
export async function freeServerPorts(given: Partial<ServerPorts> = {}): Promise<ServerPorts> {
  const ports = { ...given } as ServerPorts;
  const taken = new Set<number>(Object.values(given));
  for (const key of PORT_NAMES) {
    if (given[key] !== undefined) continue;
    let port: number;
    do port = 20_000 + Math.floor(Math.random() * (MAX_SERVER_PORT - 20_000));
    while (taken.has(port) || (await tryListen('127.0.0.1', port)));
    taken.add(port);
    ports[key] = port;
  }
  return ports;
}

export interface ServerEnvOptions {
  postgresPort: number;
  postgresPassword: string;
  ports: ServerPorts;
  metricsPort?: number;
}

/** Nothing inherited, so no TEMPORAL_* of the user's leaks in; loopback only, the server has no authentication. */
export function baseServerEnv(opts: {
  ports: ServerPorts;
  metricsPort?: number;
  numHistoryShards: number;
  dynamicConfigFile: string;
}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NUM_HISTORY_SHARDS: String(opts.numHistoryShards),
    DYNAMIC_CONFIG_FILE_PATH: opts.dynamicConfigFile,
    BIND_ON_IP: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(PORT_NAMES.map((k) => [PORTS[k][0], String(opts.ports[k])])),
    ...(opts.metricsPort === undefined ? {} : { PROMETHEUS_ENDPOINT: `127.0.0.1:${opts.metricsPort}` }),
  };
}

export function serverEnv(opts: ServerEnvOptions): NodeJS.ProcessEnv {
  const tooHigh = Object.entries(opts.ports).filter(([, port]) => port > MAX_SERVER_PORT);
  if (tooHigh.length > 0) {
    throw new Error(
      `The Temporal server's ports must be at most ${MAX_SERVER_PORT} (its membership table stores them as ` +
        `smallint): ${tooHigh.map(([name, port]) => `${name} ${port}`).join(', ')}`,
    );
  }
  return {
    ...baseServerEnv({
      ports: opts.ports,
      metricsPort: opts.metricsPort,
      numHistoryShards: NUM_HISTORY_SHARDS,
      dynamicConfigFile: path.join(findProjectRoot(), DYNAMIC_CONFIG_FILE),
    }),
    DB: DB_PLUGIN,
    DB_PORT: String(opts.postgresPort),
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER,
    POSTGRES_PWD: opts.postgresPassword,
  };
}

const port = z.coerce.number().int().min(1).max(65_535);

const ClusterEnv = z.object({
  // Two, so that one can be lost.
  CLUSTER_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  CLUSTER_DATA_DIR: z
    .string()
    .min(1)
    .optional()
    .transform((dir) => path.resolve(dir ?? path.join(findProjectRoot(), '.data', 'cluster'))),
  // Not 5432: a system PostgreSQL may be there, and this one is the cluster's own.
  CLUSTER_POSTGRES_PORT: port.default(55432),
  CLUSTER_FRONTEND_PORT: port.default(DEFAULT_SERVER_PORTS.frontend),
  CLUSTER_UI_PORT: port.default(8233),
  POSTGRES_PASSWORD: z.string().min(1).default(DEFAULT_POSTGRES_PASSWORD),
});

export function loadClusterSettings(env: NodeJS.ProcessEnv = process.env): z.output<typeof ClusterEnv> {
  return parseConfig(ClusterEnv, env, 'Cluster configuration');
}
