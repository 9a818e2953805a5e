// `npm run cluster`'s settings from the environment, checked with zod.
import * as path from 'path';
import { z } from 'zod';
import { findProjectRoot } from '../devserver/find-temporal-cli';
import { parseConfig } from '../platform-client/config';
import { DEFAULT_POSTGRES_PASSWORD, DEFAULT_SERVER_PORTS } from './server-config';

const port = z.coerce.number().int().min(1).max(65_535);

const Env = z.object({
  /** How many worker processes; two, so that one can be lost. */
  CLUSTER_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  CLUSTER_DATA_DIR: z.string().min(1).optional(),
  // Not 5432: a system PostgreSQL may be there, and this one is the cluster's own.
  CLUSTER_POSTGRES_PORT: port.default(55432),
  CLUSTER_FRONTEND_PORT: port.default(DEFAULT_SERVER_PORTS.frontend),
  CLUSTER_UI_PORT: port.default(8233),
  POSTGRES_PASSWORD: z.string().min(1).default(DEFAULT_POSTGRES_PASSWORD),
});

type ClusterSettings = Omit<z.infer<typeof Env>, 'CLUSTER_DATA_DIR'> & { CLUSTER_DATA_DIR: string };

export function loadClusterSettings(env: NodeJS.ProcessEnv = process.env): ClusterSettings {
  const settings = parseConfig(Env, env, 'Cluster configuration');
  return {
    ...settings,
    CLUSTER_DATA_DIR: path.resolve(settings.CLUSTER_DATA_DIR ?? path.join(findProjectRoot(), '.data', 'cluster')),
  };
}
