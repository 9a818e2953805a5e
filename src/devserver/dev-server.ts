import { Connection } from '@temporalio/client';
import { promises as fs } from 'fs';
import * as net from 'net';
import * as path from 'path';
import { startManagedProcess, tryListen } from './processes';

export type SearchAttributeType = 'Keyword' | 'Int' | 'Text' | 'Bool' | 'Double' | 'Datetime' | 'KeywordList';

export interface DevServerOptions {
  /** Absolute path of the `temporal` binary (see findOrBuildTemporalCli). */
  cliPath: string;
  /** Frontend gRPC port, on 127.0.0.1: the unauthenticated dev server is not reachable from the network. */
  port: number;
  /** Web UI port. Default: port + 1000, like the CLI itself. */
  uiPort?: number;
  /** SQLite file for state that survives restarts; its folder is created. Omitted: in-memory. */
  dbFile?: string;
  /** Namespace to create (with the search attributes); "default" always exists. */
  namespace?: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  log?: (msg: string) => void;
  /** No Web UI (and no UI port needed). */
  headless?: boolean;
  /** The Prometheus endpoint's port (see metricsUrl). Omitted: a random port nobody is told about. */
  metricsPort?: number;
  /** SQLite pragmas, e.g. WAL and no sync for load tests: with a synced journal every write waits for the disk. */
  sqlitePragmas?: Record<string, string>;
  /** `--dynamic-config-value KEY=<JSON>` values, on top of DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Record<string, unknown>;
  /** The error when the frontend port is taken, for a caller that knows more about who holds it. */
  busyPortMessage?: (port: number) => string;
}

export type DevServerHandle = Awaited<ReturnType<typeof startDevServer>>;

/**
 * What every dev server we start gets. Eager activity dispatch (one round trip less per activity) is on by default
 * in the cluster's server (1.32), off in the CLI's (1.29): this keeps the two alike (docs/benchmarks.md). A build
 * retires in about a minute after its last pinned run, as on the cluster (deploy/dynamicconfig/cluster.yaml).
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'system.enableActivityEagerExecution': true,
  'matching.wv.VersionDrainageStatusRefreshInterval': '10s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '30s',
  'matching.PollerHistoryTTL': '2m',
  // Priority and fair shares on the quota queues, as on the cluster (docs/fairness.md).
  'matching.enableFairness': true,
  ...taskQueuePartitions(1),
};

/**
 * `partitions` read and write partitions on every task queue. The dev servers use one: a paced quota queue's
 * drained partition cannot lend its rate to another (docs/rate-limits.md, "One partition per quota queue").
 */
export function taskQueuePartitions(partitions: number): Record<string, number> {
  return {
    'matching.numTaskqueueReadPartitions': partitions,
    'matching.numTaskqueueWritePartitions': partitions,
  };
}

/** The server's own partition count, for data written before the dev server had one. */
export const SERVER_DEFAULT_PARTITIONS = 4;

/** The IP, not "localhost", which Node may resolve to ::1. */
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export async function startDevServer(opts: DevServerOptions) {
  const log = opts.log ?? (() => undefined);
  const { port } = opts;
  const uiPort = opts.uiPort ?? Math.min(port + 1000, 65535);
  const namespace = opts.namespace ?? 'default';
  const address = `${HOST}:${port}`;
  const uiUrl = opts.headless ? undefined : `http://${HOST}:${uiPort}`;
  const metricsUrl = opts.metricsPort === undefined ? undefined : `http://${HOST}:${opts.metricsPort}/metrics`;

  // The CLI would also refuse a busy port, but with an error that does not hint at the usual cause.
  const assertFree = async (p: number, busy: (p: number) => string): Promise<void> => {
    const err = await tryListen(HOST, p);
    if (err?.code === 'EADDRINUSE') throw new Error(busy(p));
    if (err) throw err;
  };
  const busy = (what: string, variable: string) => (p: number) =>
    `Port ${p}${what} is already in use: is another Temporal server running? Stop it, or set ${variable} to use another port.`;
  await assertFree(port, opts.busyPortMessage ?? busy('', 'TEMPORAL_DEV_PORT'));
  if (!opts.headless) await assertFree(uiPort, busy(' (Temporal Web UI)', 'TEMPORAL_DEV_UI_PORT'));

  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--log-level', 'warn'];
  args.push(...(opts.headless ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (opts.dbFile) {
    const dbFile = path.resolve(opts.dbFile);
    await fs.mkdir(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  // "default" is always created; passing it again would register it twice.
  if (namespace !== 'default') args.push('--namespace', namespace);
  if (opts.metricsPort !== undefined) args.push('--metrics-port', String(opts.metricsPort));
  for (const [name, value] of Object.entries(opts.sqlitePragmas ?? {})) {
    args.push('--sqlite-pragma', `${name}=${value}`);
  }
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const [name, type] of Object.entries(opts.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }

  const started = Date.now();
  log(`Starting Temporal dev server: ${opts.cliPath} ${args.join(' ')}`);
  let stopRequested = false;
  const child = startManagedProcess({
    name: 'Temporal dev server',
    file: opts.cliPath,
    args,
    // A graceful stop makes the server's internal workers log a burst of "connection refused" / "context
    // canceled" warnings and errors: noise for the caller.
    onLine: (line) => (stopRequested && /level=(WARN|ERROR)/.test(line) ? undefined : log(`[temporal] ${line}`)),
    log,
    // Not SIGKILL: the server then closes its SQLite file cleanly.
    exitSignal: 'SIGTERM',
    graceMs: STOP_GRACE_MS,
  });
  const stop = async (): Promise<void> => {
    stopRequested = true;
    await child.stop();
  };

  await child.ready(() => frontendAnswers(HOST, port, namespace), READY_TIMEOUT_MS);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`Temporal dev server ready at ${address}${uiUrl ? `, UI ${uiUrl}` : ''} (namespace ${namespace}, ${seconds} s)`);
  return { address, uiUrl, metricsUrl, namespace, pid: child.pid, stop };
}

/**
 * Resolves once the frontend answers a real RPC (serving `namespace`, when given): an open socket is
 * not yet a server that is up. A TCP connect first, because it is cheap and fails at once.
 */
export async function frontendAnswers(host: string, port: number, namespace?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 1_000 }, () => resolve(void socket.destroy()));
    socket.once('timeout', () => socket.destroy(new Error(`connect to ${host}:${port} timed out`)));
    socket.once('error', reject);
  });
  const connection = await Connection.connect({ address: `${host}:${port}`, connectTimeout: 2_000 });
  try {
    if (namespace) await connection.workflowService.describeNamespace({ namespace });
    else await connection.workflowService.getSystemInfo({});
  } finally {
    await connection.close();
  }
}
