// A Temporal client for the starter, configured like the worker (envconfig).
import { Client, Connection } from '@temporalio/client';
import { clientConnectionOptions, loadTemporalSettings, type TemporalSettings } from '../config/temporal';
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
  return {
    client: new Client({ connection, namespace: settings.namespace }),
    settings,
    close: () => connection.close(),
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
