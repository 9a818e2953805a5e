// The dev server of `npm start`, the tests and the benchmarks: the cluster's Temporal server build on SQLite, and its
// Web UI server (docs/cluster.md, "The dev server and the cluster").
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { baseServerEnv, DEFAULT_SERVER_PORTS, freeServerPorts, type ServerPorts } from './server-config';
import { onceNamespaceSettles, registerNamespace, startTemporalServer, startUiServer } from './temporal-server';
import type { ClusterBinaries } from './temporal-programs';
import { sleep, tryListen, type ManagedProcess } from './processes';
import { indexedValueType } from '../namespace/search-attributes';
import { prepareSqliteFile, sqliteServerEnv, type SqlitePragmas } from './sqlite';

type SearchAttributeType = 'Keyword' | 'Int' | 'Text' | 'Bool' | 'Double' | 'Datetime' | 'KeywordList';

export interface DevServerOptions {
  binaries: ClusterBinaries;
  /** On 127.0.0.1: the unauthenticated dev server is not reachable from the network. */
  port: number;
  /** Default: port + 1000, like the CLI's dev server. */
  uiPort?: number;
  /** Omitted: in-memory. */
  dbFile?: string;
  /** Created with the search attributes, as "default" is. */
  namespace?: string;
  searchAttributes?: Record<string, SearchAttributeType>;
  log?: (msg: string) => void;
  headless?: boolean;
  metricsPort?: number;
  sqlitePragmas?: SqlitePragmas;
  /** On top of DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Record<string, unknown>;
  busyPortMessage?: (port: number) => string;
  codecEndpoint?: string;
}

export type DevServerHandle = Awaited<ReturnType<typeof startDevServer>>;

/** As on the cluster (deploy/dynamicconfig/cluster.yaml, docs/fairness.md). */
const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'system.enableActivityEagerExecution': true,
  'matching.wv.VersionDrainageStatusRefreshInterval': '10s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '30s',
  'matching.PollerHistoryTTL': '2m',
  'matching.enableFairness': true,
  'worker.batcherRPS': 10,
  ...taskQueuePartitions(1),
};

/** What `temporal server start-dev` (CLI 1.5.1) set by itself, which the tests and benchmarks were made with. */
const START_DEV_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'system.forceSearchAttributesCacheRefreshOnRead': true,
  'frontend.persistenceMaxQPS': 10_000,
  'history.persistenceMaxQPS': 45_000,
  'frontend.namespaceRPS.visibility': 100,
  'history.hostLevelCacheMaxSize': 8096,
};

/** One for the dev servers: a drained partition cannot lend its rate to another (docs/rate-limits.md). */
export function taskQueuePartitions(partitions: number): Record<string, number> {
  return {
    'matching.numTaskqueueReadPartitions': partitions,
    'matching.numTaskqueueWritePartitions': partitions,
  };
}

export const SERVER_DEFAULT_PARTITIONS = 4;

/** Not "localhost", which Node may resolve to ::1. */
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const RETENTION = '1 day';
const NUM_HISTORY_SHARDS = 1;
/** The namespace cache refreshes every 2 s: a workflow started sooner could be refused a new attribute. */
const SEARCH_ATTRIBUTE_PROPAGATION_MS = 2_500;

/** Named on both processes' command lines (`--root`), which is how a stack left running is found (isDevServerOf). */
export const devServerDir = (dbFile: string): string => `${path.resolve(dbFile)}.server`;

/** Whether a process's command line is that of a dev server (or its Web UI server, or the CLI's) on `dbFile`. */
export function isDevServerOf(dbFile: string, args: string): boolean {
  const root = ` --root ${devServerDir(dbFile)}`;
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

  // The server's own error would not hint at the usual cause.
  const assertFree = async (p: number, busy: (p: number) => string): Promise<void> => {
    const err = await tryListen(HOST, p);
    if (err?.code === 'EADDRINUSE') throw new Error(busy(p));
    if (err) throw err;
  };
  const busy = (what: string, variable: string) => (p: number) =>
    `Port ${p}${what} is already in use: is another Temporal server running? Stop it, or set ${variable} to use another port.`;
  await assertFree(port, opts.busyPortMessage ?? busy('', 'TEMPORAL_DEV_PORT'));
  if (!opts.headless) await assertFree(uiPort, busy(' (Temporal Web UI)', 'TEMPORAL_DEV_UI_PORT'));
  if (opts.metricsPort !== undefined)
    await assertFree(opts.metricsPort, (p) => `Port ${p} (metrics) is already in use`);
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
      // A graceful stop makes the server's internal workers log a burst of warnings and errors.
      onLine: (line) => (stopRequested && /"level":"(warn|error)"/.test(line) ? undefined : log(`[temporal] ${line}`)),
      log,
      // The server then closes its SQLite file cleanly.
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
 * Free ports but the frontend's, kept in `dir` from one start on a file to the next: the membership ring is in the
 * file, and a server on other ports would wait for those of the one before, and its stop would hang on them.
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

type IndexedValueType = temporal.api.enums.v1.IndexedValueType;

function indexedTypes(attributes: Record<string, SearchAttributeType>): Record<string, IndexedValueType> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, type]) => {
      const value = indexedValueType(type);
      if (value === undefined) throw new Error(`Search attribute ${name}: unknown type ${type}`);
      return [name, value];
    }),
  );
}

/** Every value for every namespace and queue, as JSON, which is YAML. */
function dynamicConfigYaml(values: Record<string, unknown>): string {
  const entries = Object.entries(values).map(([key, value]) => [key, [{ value, constraints: {} }]]);
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

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
