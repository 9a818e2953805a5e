// A Temporal client for the starter, configured like the worker (envconfig).
import { Client, Connection } from '@temporalio/client';
import { clientConnectionOptions, loadTemporalSettings, type TemporalSettings } from '../config/settings';
import { startTracing, tracingClientInterceptors } from '../tracing';
import { CliError, ExitCode } from './exit-codes';

interface StarterClient {
  client: Client;
  settings: TemporalSettings;
  close: () => Promise<void>;
}

async function connectStarter(env: NodeJS.ProcessEnv = process.env): Promise<StarterClient> {
  const settings = loadTemporalSettings(env);
  const { address } = settings;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...clientConnectionOptions(settings), connectTimeout: '5s' });
  } catch (err) {
    throw new CliError(
      `Cannot reach Temporal at ${address}: ${err instanceof Error ? err.message : String(err)}. ` +
        'Is `npm start` running, or is TEMPORAL_ADDRESS right?',
      ExitCode.Unavailable,
    );
  }
  // With OTEL_* set, the workflow's trace starts at the starter's start call (docs/observability.md).
  const tracing = startTracing(env, 'platform-ops-starter');
  return {
    client: new Client({
      connection,
      namespace: settings.namespace,
      ...(tracing ? { interceptors: tracingClientInterceptors() } : {}),
    }),
    settings,
    close: async () => {
      await connection.close();
      await tracing?.shutdown();
    },
  };
}

/** Runs `fn` with a connected starter client, and closes the connection however `fn` ends. */
export async function withStarter<T>(fn: (starter: StarterClient) => Promise<T>): Promise<T> {
  const starter = await connectStarter();
  try {
    return await fn(starter);
  } finally {
    await starter.close();
  }
}
