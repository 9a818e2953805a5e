// The dev server of `npm start`, the tests and the benchmarks: the cluster's Temporal server build (versions.ts) on
// SQLite with one history shard, all its services in one process, and its Web UI server (docs/cluster.md, "The dev
// server and the cluster"). The Temporal CLI is the operator's client of it, not its server.
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { baseServerEnv, DEFAULT_SERVER_PORTS, freeServerPorts, type ServerPorts } from './server-config';
import { onceNamespaceSettles, registerNamespace, startTemporalServer, startUiServer } from './temporal-server';
import type { ClusterBinaries } from './versions';
import { sleep, tryListen, type ManagedProcess } from './processes';
import { prepareSqliteFile, sqliteServerEnv, type SqlitePragmas } from './sqlite';

export type SearchAttributeType = 'Keyword' | 'Int' | 'Text' | 'Bool' | 'Double' | 'Datetime' | 'KeywordList';

export interface DevServerOptions {
  /** The server, SQL tool and UI server builds (see findOrBuildClusterBinaries). */
  binaries: ClusterBinaries;
  /** Frontend gRPC port, on 127.0.0.1: the unauthenticated dev server is not reachable from the network. */
  port: number;
  /** Web UI port. Default: port + 1000, like the CLI's dev server. */
  uiPort?: number;
  /** SQLite file for state that survives restarts; its folder is created. Omitted: in-memory. */
  dbFile?: string;
  /** Namespace to create (with the search attributes); "default" always exists. */
  namespace?: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  log?: (msg: string) => void;
  /** No Web UI (and no UI port needed). */
  headless?: boolean;
  /** The Prometheus endpoint's port (see metricsUrl). Omitted: no metrics. */
  metricsPort?: number;
  /** SQLite pragmas, e.g. no sync for load tests: with a synced journal every write waits for the disk. */
  sqlitePragmas?: SqlitePragmas;
  /** Dynamic config values, on top of DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Record<string, unknown>;
  /** The error when the frontend port is taken, for a caller that knows more about who holds it. */
  busyPortMessage?: (port: number) => string;
  /** The codec server the Web UI decodes payloads with (src/codec/server.ts). */
  codecEndpoint?: string;
}

export type DevServerHandle = Awaited<ReturnType<typeof startDevServer>>;

/**
 * What every dev server we start gets. Eager activity dispatch (one round trip less per activity) is the 1.32
 * server's default, as on the cluster (docs/benchmarks.md). A build retires in about a minute after its last pinned
 * run, as on the cluster (deploy/dynamicconfig/cluster.yaml).
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'system.enableActivityEagerExecution': true,
  'matching.wv.VersionDrainageStatusRefreshInterval': '10s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '30s',
  'matching.PollerHistoryTTL': '2m',
  // Priority and fair shares on the quota queues, as on the cluster (docs/fairness.md).
  'matching.enableFairness': true,
  // One batch operation's pace, as on the cluster (deploy/dynamicconfig/cluster.yaml, "Batch operations").
  'worker.batcherRPS': 10,
  ...taskQueuePartitions(1),
};

/**
 * What `temporal server start-dev` (CLI 1.5.1) set by itself, which the tests and benchmarks were made with: search
 * attributes visible at once, the persistence rate limits raised to match, 100 visibility calls a second per
 * namespace (the cluster's too), and a smaller host-level history cache.
 */
const START_DEV_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'system.forceSearchAttributesCacheRefreshOnRead': true,
  'frontend.persistenceMaxQPS': 10_000,
  'history.persistenceMaxQPS': 45_000,
  'frontend.namespaceRPS.visibility': 100,
  'history.hostLevelCacheMaxSize': 8096,
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
/** How long closed workflows stay visible: a day, as in the CLI's dev server. */
const RETENTION = '1 day';
/** As the CLI's dev server: one shard, the least work for one process on one database. */
const NUM_HISTORY_SHARDS = 1;
/**
 * A new search attribute reaches each service with its namespace cache, refreshed every 2 s
 * (system.namespaceCacheRefreshInterval): a workflow started sooner could be refused it.
 */
const SEARCH_ATTRIBUTE_PROPAGATION_MS = 2_500;

/**
 * The folder of a dev server on `dbFile`: its dynamic config, its log and its Web UI server's config. Both processes
 * name it on their command line (`--root`), which is how a stack left running is found (isDevServerOf).
 */
export const devServerDir = (dbFile: string): string => `${path.resolve(dbFile)}.server`;

/** Whether a process's command line is that of a dev server (or its Web UI server) on `dbFile`. */
export function isDevServerOf(dbFile: string, args: string): boolean {
  const root = ` --root ${devServerDir(dbFile)}`;
  // The CLI's dev server, which ran before this one, named its file.
  const cli = / start-dev /.test(args) && args.includes(` --db-filename ${path.resolve(dbFile)}`);
  return cli || args.includes(`${root} `) || args.includes(`${root}/ui-server `);
}

export async function startDevServer(opts: DevServerOptions) {
  const log = opts.log ?? (() => undefined);
  const { port, binaries } = opts;
  const uiPort = opts.uiPort ?? Math.min(port + 1000, 65535);
  const namespace = opts.namespace ?? 'default';
  const address = `${HOST}:${port}`;
  const metricsUrl = opts.metricsPort === undefined ? undefined : `http://${HOST}:${opts.metricsPort}/metrics`;
  const dbFile = opts.dbFile && path.resolve(opts.dbFile);
  const attributes = indexedTypes(opts.searchAttributes ?? {});

  // The server would refuse a busy port too, but with an error that does not hint at the usual cause.
  const assertFree = async (p: number, busy: (p: number) => string): Promise<void> => {
    const err = await tryListen(HOST, p);
    if (err?.code === 'EADDRINUSE') throw new Error(busy(p));
    if (err) throw err;
  };
  const busy = (what: string, variable: string) => (p: number) =>
    `Port ${p}${what} is already in use: is another Temporal server running? Stop it, or set ${variable} to use another port.`;
  await assertFree(port, opts.busyPortMessage ?? busy('', 'TEMPORAL_DEV_PORT'));
  if (!opts.headless) await assertFree(uiPort, busy(' (Temporal Web UI)', 'TEMPORAL_DEV_UI_PORT'));
  // The server would start without its metrics, saying so only in its log.
  if (opts.metricsPort !== undefined)
    await assertFree(opts.metricsPort, (p) => `Port ${p} (metrics) is already in use`);

  // In memory, the folder is temporary like the data.
  const dir = dbFile ? devServerDir(dbFile) : await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-dev-server-'));
  await fs.mkdir(dir, { recursive: true });
  const dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
  const dynamicConfig = { ...START_DEV_DYNAMIC_CONFIG, ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig };
  await fs.writeFile(dynamicConfigFile, dynamicConfigYaml(dynamicConfig));
  if (dbFile) {
    await fs.mkdir(path.dirname(dbFile), { recursive: true });
    await prepareSqliteFile(binaries.sqlTool, dbFile, log);
  }
  const env = {
    ...baseServerEnv({
      ports: await serverPorts(dbFile && dir, port),
      metricsPort: opts.metricsPort,
      numHistoryShards: NUM_HISTORY_SHARDS,
      dynamicConfigFile,
    }),
    ...sqliteServerEnv(dbFile, opts.sqlitePragmas),
  };

  const started = Date.now();
  log(`Starting Temporal dev server ${binaries.server} on ${dbFile ?? 'an in-memory database'} (config in ${dir})`);
  let stopRequested = false;
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    stopRequested = true;
    for (const s of stops.splice(0).reverse()) await s().catch((err: unknown) => log(`while stopping: ${String(err)}`));
  };
  if (!dbFile) stops.push(() => fs.rm(dir, { recursive: true, force: true }));
  let server: ManagedProcess | undefined;
  let uiUrl: string | undefined;
  try {
    server = await startTemporalServer({
      name: 'Temporal dev server',
      binary: binaries.server,
      env,
      port,
      readyTimeoutMs: READY_TIMEOUT_MS,
      args: ['--root', dir],
      logFile: dbFile ? path.join(dir, 'temporal-server.log') : undefined,
      // A graceful stop makes the server's internal workers log a burst of "connection refused" / "context
      // canceled" warnings and errors: noise for the caller.
      onLine: (line) => (stopRequested && /"level":"(warn|error)"/.test(line) ? undefined : log(`[temporal] ${line}`)),
      log,
      // Not SIGKILL when this process exits first: the server then closes its SQLite file cleanly.
      exitSignal: 'SIGTERM',
      graceMs: STOP_GRACE_MS,
    });
    const child = server;
    stops.push(() => child.stop());
    await setUpNamespaces(address, ['default', namespace], attributes, log);
    if (!opts.headless) {
      const ui = await startUiServer(binaries.uiServer, {
        dir: path.join(dir, 'ui-server'),
        port: uiPort,
        address,
        namespace,
        log,
        exitSignal: 'SIGTERM',
        codecEndpoint: opts.codecEndpoint,
      });
      stops.push(() => ui.process.stop());
      uiUrl = ui.url;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`Temporal dev server ready at ${address}${uiUrl ? `, UI ${uiUrl}` : ''} (namespace ${namespace}, ${seconds} s)`);
  return { address, uiUrl, metricsUrl, namespace, pid: server.pid, stop };
}

/**
 * The server's ports but the frontend's (history, matching, worker, their membership ring, HTTP): free ones, kept in
 * `dir` from one start on a file to the next. The ring's members are in the file: a server on other ports would
 * wait for those of the one before (stopped, but seen less than 20 s ago), and its stop would hang on them.
 */
async function serverPorts(dir: string | undefined, frontend: number): Promise<ServerPorts> {
  const file = dir && path.join(dir, 'ports.json');
  const saved = file
    ? await fs
        .readFile(file, 'utf8')
        .then((text) => JSON.parse(text) as Partial<ServerPorts>)
        .catch(() => undefined)
    : undefined;
  const names = Object.keys(DEFAULT_SERVER_PORTS).filter((k) => k !== 'frontend') as Array<keyof ServerPorts>;
  if (saved && names.every((k) => Number.isInteger(saved[k]))) {
    const busy = await Promise.all(names.map((k) => tryListen(HOST, saved[k]!)));
    if (busy.every((err) => err === undefined)) return { ...(saved as ServerPorts), frontend };
  }
  const ports = await freeServerPorts({ frontend });
  if (file) await fs.writeFile(file, `${JSON.stringify(ports)}\n`);
  return ports;
}

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
type IndexedValueType = temporal.api.enums.v1.IndexedValueType;

/** The server's enum for each attribute's type, refused before anything starts when a type has none. */
function indexedTypes(attributes: Record<string, SearchAttributeType>): Record<string, IndexedValueType> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, type]) => {
      const key = `INDEXED_VALUE_TYPE_${type.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase()}`;
      const value = (IndexedValueType as unknown as Record<string, IndexedValueType | undefined>)[key];
      if (value === undefined) throw new Error(`Search attribute ${name}: unknown type ${type}`);
      return [name, value];
    }),
  );
}

/** The dynamic config file the server reads (and re-reads): every value for every namespace and queue. */
function dynamicConfigYaml(values: Record<string, unknown>): string {
  // JSON is YAML.
  const entries = Object.entries(values).map(([key, value]) => [key, [{ value, constraints: {} }]]);
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

/** Each namespace, with the attributes it lacks: a new database has none (the CLI's dev server made them itself). */
async function setUpNamespaces(
  address: string,
  namespaces: string[],
  attributes: Record<string, IndexedValueType>,
  log: (msg: string) => void,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    let added = false;
    for (const namespace of new Set(namespaces)) {
      await registerNamespace(connection, namespace, RETENTION, log);
      const existing = await onceNamespaceSettles(
        async () => (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {},
      );
      const missing = Object.entries(attributes).filter(([name]) => existing[name] === undefined);
      if (missing.length === 0) continue;
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing),
      });
      added = true;
    }
    if (added) await sleep(SEARCH_ATTRIBUTE_PROPAGATION_MS);
  } finally {
    await connection.close();
  }
}
