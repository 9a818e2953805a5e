// Where Temporal is: every setting comes from @temporalio/envconfig (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and temporal.toml profiles),
// for the client and the worker alike. So the same code runs against the local dev server, a
// self-hosted cluster or Temporal Cloud.
import type { ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../api/contract';

export interface TemporalSettings {
  /** host:port of the frontend (also inside connectionOptions). */
  address: string;
  connectionOptions: NativeConnectionOptions;
  namespace: string;
  taskQueue: string;
  /** True when TEMPORAL_ADDRESS (or a profile) names a server: then no local server is started. */
  addressConfigured: boolean;
}

const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';

export function loadTemporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const overrideEnvVars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const config = loadClientConnectConfig({ overrideEnvVars });
  const configured = config.connectionOptions.address;
  const address = configured ?? DEFAULT_TEMPORAL_ADDRESS;
  return {
    address,
    connectionOptions: { ...config.connectionOptions, address },
    namespace: config.namespace ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE,
    addressConfigured: Boolean(configured),
  };
}

/** The same server and credentials, for a client connection (`@temporalio/client`'s Connection). */
export function clientConnectionOptions(settings: TemporalSettings): ConnectionOptions {
  const { tls, apiKey, metadata } = settings.connectionOptions;
  return { address: settings.address, tls, apiKey, metadata };
}
