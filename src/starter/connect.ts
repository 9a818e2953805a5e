// A Temporal client for the starter's commands, configured like the worker (envconfig), and how the
// commands print.
import { Client, Connection } from '@temporalio/client';
import { clientConnectionOptions, loadTemporalSettings, type TemporalSettings } from '../config/settings';
import { startTracing, tracingClientInterceptors } from '../tracing';
import { CliError, ExitCode } from './exit-codes';

/** Where a command prints what it has to say (stdout). */
export type Out = (line: string) => void;

/** A table's line: each cell padded to its column's width (a last cell without one as it is). */
export const tableRow = (widths: number[], cells: unknown[], gap = ' '): string =>
  cells.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join(gap);

/** `1 job`, `3 jobs`. */
export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Runs `fn` with a connected client, and closes the connection however `fn` ends. */
export async function withStarter<T>(
  fn: (starter: { client: Client; settings: TemporalSettings }) => Promise<T>,
): Promise<T> {
  const settings = loadTemporalSettings();
  const connection = await Connection.connect({ ...clientConnectionOptions(settings), connectTimeout: '5s' }).catch(
    (err: unknown) => {
      throw new CliError(
        `Cannot reach Temporal at ${settings.address}: ${err instanceof Error ? err.message : String(err)}. ` +
          'Is `npm start` running, or is TEMPORAL_ADDRESS right?',
        ExitCode.Unavailable,
      );
    },
  );
  // With OTEL_* set, the workflow's trace starts at the starter's start call (docs/observability.md).
  const tracing = startTracing(process.env, 'platform-ops-starter');
  const interceptors = tracing ? tracingClientInterceptors() : undefined;
  try {
    return await fn({ client: new Client({ connection, namespace: settings.namespace, interceptors }), settings });
  } finally {
    await connection.close();
    await tracing?.shutdown();
  }
}
