// How the Temporal server of the production topology is configured: through its environment (the
// server's embedded config template reads it when started with no config flags) and the project's
// dynamic config file. `npm run cluster` starts the server with serverEnv(); docker-compose.yml sets
// the same values, which test/deploy/compose.test.ts checks.
import * as path from 'path';
import { findProjectRoot } from '../devserver/find-temporal-cli';

/** The server's persistence plugin for PostgreSQL 12 and later. */
const DB_PLUGIN = 'postgres12';
/** Fixed for the life of a cluster's data: changing it needs a new database. Four suit two cores. */
export const NUM_HISTORY_SHARDS = 4;
/** The database user the server connects as (its password: POSTGRES_PASSWORD, "temporal" by default). */
export const POSTGRES_USER = 'temporal';
export const DEFAULT_POSTGRES_PASSWORD = 'temporal';
/** Relative to the project root; docker-compose.yml mounts the same file. */
export const DYNAMIC_CONFIG_FILE = path.join('deploy', 'dynamicconfig', 'cluster.yaml');

/** Every port the server listens on (its four services and their membership ring). */
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  frontendMembership: number;
  historyMembership: number;
  matchingMembership: number;
  workerMembership: number;
}

/** The server's own defaults; the frontend's 7233 is also the dev server's. */
export const DEFAULT_SERVER_PORTS: ServerPorts = {
  frontend: 7233,
  frontendHttp: 7243,
  history: 7234,
  matching: 7235,
  worker: 7239,
  frontendMembership: 6933,
  historyMembership: 6934,
  matchingMembership: 6935,
  workerMembership: 6939,
};

const PORT_VARIABLES: Record<keyof ServerPorts, string> = {
  frontend: 'FRONTEND_GRPC_PORT',
  frontendHttp: 'FRONTEND_HTTP_PORT',
  history: 'HISTORY_GRPC_PORT',
  matching: 'MATCHING_GRPC_PORT',
  worker: 'WORKER_GRPC_PORT',
  frontendMembership: 'FRONTEND_MEMBERSHIP_PORT',
  historyMembership: 'HISTORY_MEMBERSHIP_PORT',
  matchingMembership: 'MATCHING_MEMBERSHIP_PORT',
  workerMembership: 'WORKER_MEMBERSHIP_PORT',
};

export interface ServerEnvOptions {
  postgresPort: number;
  postgresPassword: string;
  ports: ServerPorts;
  /** Serves Prometheus metrics on 127.0.0.1:port when set. */
  metricsPort?: number;
}

/**
 * The server keeps each service's ports in PostgreSQL's cluster_membership table, whose port
 * columns are smallint: a port above 32767 (any ephemeral port Linux hands out) makes the server
 * fail at start ("value … is out of range for type smallint").
 */
export const MAX_SERVER_PORT = 32_767;

/** The whole environment of the server process: nothing inherited, so no TEMPORAL_* of the user's leaks in. */
export function serverEnv(opts: ServerEnvOptions): NodeJS.ProcessEnv {
  const tooHigh = Object.entries(opts.ports).filter(([, port]) => port > MAX_SERVER_PORT);
  if (tooHigh.length > 0) {
    throw new Error(
      `The Temporal server's ports must be at most ${MAX_SERVER_PORT} (its membership table stores them as ` +
        `smallint): ${tooHigh.map(([name, port]) => `${name} ${port}`).join(', ')}`,
    );
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DB: DB_PLUGIN,
    DB_PORT: String(opts.postgresPort),
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER,
    POSTGRES_PWD: opts.postgresPassword,
    NUM_HISTORY_SHARDS: String(NUM_HISTORY_SHARDS),
    DYNAMIC_CONFIG_FILE_PATH: path.join(findProjectRoot(), DYNAMIC_CONFIG_FILE),
    // Not reachable from the network: the server has no authentication.
    BIND_ON_IP: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  for (const [key, variable] of Object.entries(PORT_VARIABLES))
    env[variable] = String(opts.ports[key as keyof ServerPorts]);
  if (opts.metricsPort !== undefined) env.PROMETHEUS_ENDPOINT = `127.0.0.1:${opts.metricsPort}`;
  return env;
}
