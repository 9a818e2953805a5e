// The stack a workflow benchmark runs on: the compiled emulator in a process of its own, loaded with
// the benchmark's fixtures, a real Temporal dev server (its SQLite file in a temp folder, tuned for
// load, its Prometheus metrics on a known port), and the service's worker in a process of its own
// (worker-main) on a fresh task queue, so its memory and CPU can be read apart from the benchmark's.
// With `cluster`, the production topology of `npm run cluster` (src/cluster: PostgreSQL, the Temporal
// server on it, the namespace and search attributes) replaces the dev server, in the same temp folder.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DEFAULT_PATHS, loadDataConverter, newKey, SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { startCluster } from '../../src/cluster/cluster';
import { DEFAULT_POSTGRES_PASSWORD, freeServerPorts } from '../../src/devserver/server-config';
import { findOrBuildClusterBinaries } from '../../src/devserver/temporal-programs';
import { startDevServer } from '../../src/devserver/dev-server';
import { getFreePort } from '../../src/devserver/processes';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { PlatformClient } from '../../src/platform-client/client';
import { startEmulatorProcess } from './emulator-process';
import { ProcSampler, readTreeCpuMs } from './proc-stats';
import { bundleBenchWorkflows, WORKFLOW_BUNDLE_ENV } from './worker-main';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

export interface BenchWorker {
  /**
   * Starts a fresh worker process, runs `fn` while it polls, then stops it (drained) however `fn`
   * ends. Each call is a new process, so each phase of a benchmark starts from the same memory.
   */
  runUntil<R>(fn: (proc: WorkerProcess) => Promise<R>, env?: Record<string, string>): Promise<R>;
  /** As runUntil, with `count` worker processes on the same task queue, started together, `env` added. */
  runUntilAll<R>(count: number, fn: (procs: WorkerProcess[]) => Promise<R>, env?: Record<string, string>): Promise<R>;
  /** Starts a worker process the caller stops (or kills); the stack stops it at the end if still up. */
  start(): Promise<WorkerProcess>;
}

interface BenchServer {
  address: string;
  namespace: string;
  /** The server's Prometheus endpoint (`service_requests` by operation). */
  metricsUrl: string;
  /** The server's own process, read every second (the new process after a restart). */
  sampler: ProcSampler;
  /** Stops the server (SIGTERM) and starts it again on the same data, ports and metrics port. */
  restart(): Promise<void>;
  /** Which server: the dev server (SQLite), or the production topology's (PostgreSQL, `cluster`). */
  kind: 'dev-server' | 'cluster';
  /** The cluster's PostgreSQL: CPU of all its processes so far, and its data directory's size on disk. */
  database?: { cpuMs(): number; sizeBytes(): number };
}

export interface BenchStackOptions {
  /** The API key the worker and the platform client use (default the dev key); the fixtures must know it. */
  apiKey?: string;
  /**
   * Where the processes' output goes: worker.log, temporal.log and emulator.log (the emulator with its
   * request log on). Without it, only the worker's warnings are shown, and the rest is dropped.
   */
  logDir?: string;
  /** The worker's LOG_LEVEL (default WARN). */
  workerLogLevel?: string;
  /**
   * The production topology (src/cluster's startCluster: PostgreSQL and the Temporal server built from
   * Go) instead of the dev server; its logs (and PostgreSQL's) in the temp folder's `logs/`.
   */
  cluster?: boolean;
  /** More emulator settings (EMULATOR_CLOCK_SPEED …). */
  emulatorEnv?: Record<string, string>;
}

export interface BenchStack {
  emulatorUrl: string;
  /** Calls the emulator's admin API and returns its JSON answer; throws on a non-2xx status. */
  admin: <T>(method: string, p: string, body?: unknown) => Promise<T>;
  /** A platform client of the emulator, with the dev key. */
  platform: PlatformClient;
  client: Client;
  taskQueue: string;
  /** Where the worker keeps outputs, bills and batch files. */
  artifactDir: string;
  worker: BenchWorker;
  server: BenchServer;
}

/**
 * SQLite settings of the TypeScript SDK's own load tests: the server keeps one SQLite connection, so
 * a write that waits for the disk holds up every other one.
 */
const BENCH_SQLITE_PRAGMAS = { journal_mode: 'WAL', synchronous: 'OFF' };

let bundleFile: Promise<string> | undefined;

/** The bench workflows bundled once per benchmark run, in a temp file every worker process loads. */
function benchBundleFile(log: (msg: string) => void): Promise<string> {
  bundleFile ??= (async () => {
    const started = Date.now();
    const code = await bundleBenchWorkflows();
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'workflow-bundle.js');
    writeFileSync(file, code);
    log(`workflow bundle built in ${Date.now() - started} ms (${Math.round(code.length / 1024)} KB)`);
    return file;
  })();
  return bundleFile;
}

/**
 * Payloads encrypted as by default (src/codec), with a key of the run's own (`<prefix>-…`) unless this process's
 * environment gives one or turns encryption off; the worker processes and commands it starts inherit it.
 */
export function ensureRunKey(prefix: string): void {
  if ((process.env.PAYLOAD_ENCRYPTION ?? 'on') === 'on' && !process.env.PAYLOAD_KEYS && !process.env.PAYLOAD_KEY_FILE) {
    process.env.PAYLOAD_KEYS = `${prefix}-${randomUUID().slice(0, 8)}:${newKey()}`;
  }
}

/**
 * Starts the stack, loads `fixtures` into the emulator (before anything else, as a benchmark's
 * starting state), runs `fn`, and stops everything however `fn` ends.
 */
export async function withBenchStack<T>(
  name: string,
  fixtures: Record<string, unknown>,
  fn: (stack: BenchStack) => Promise<T>,
  options: BenchStackOptions = {},
): Promise<T> {
  const log = (msg: string) => process.stderr.write(`[${name}] ${msg}\n`);
  const apiKey = options.apiKey ?? DEV_API_KEY;
  ensureRunKey('bench');
  const logFile = (file: string) => (options.logDir ? path.join(options.logDir, file) : undefined);
  const emulator = await startEmulatorProcess(
    undefined,
    { ...(options.logDir ? { EMULATOR_LOG: '1' } : {}), ...options.emulatorEnv },
    logFile('emulator.log'),
  );
  const admin = async <R>(method: string, p: string, body?: unknown): Promise<R> => {
    const res = await fetch(`${emulator.url}/_emulator${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`admin ${method} ${p}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as R;
  };
  const dataDir = mkdtempSync(path.join(tmpdir(), `bench-${name}-`));
  const artifactDir = path.join(dataDir, 'artifacts');
  const stops: Array<() => Promise<void>> = [
    () => emulator.stop(),
    () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  ];
  try {
    await admin('POST', '/fixtures', fixtures);
    const platform = new PlatformClient({
      baseUrl: emulator.url,
      apiKey,
      timeoutMs: 30_000,
      paths: { ...DEFAULT_PATHS },
      billProductNameParam: 'productName',
    });
    const [bundle, metricsPort] = await Promise.all([benchBundleFile(log), getFreePort()]);
    const server = options.cluster
      ? await startClusterServer(dataDir, metricsPort, log)
      : await startDevServerOf(dataDir, metricsPort, logFile('temporal.log'), log);
    stops.unshift(() => server.stop());
    const connection = await Connection.connect({ address: server.bench.address });
    stops.unshift(() => connection.close());
    const client = new Client({ connection, namespace: server.bench.namespace, dataConverter: loadDataConverter() });
    const taskQueue = `bench-${name}-${randomUUID().slice(0, 8)}`;
    // The settings a deployed worker reads (src/worker.ts's runWorker), pointed at this stack; the
    // worker's own tuning (WORKER_*) keeps its defaults unless the caller's environment sets it.
    const workerEnv = {
      TEMPORAL_ADDRESS: server.bench.address,
      TEMPORAL_NAMESPACE: server.bench.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PLATFORM_BASE_URL: emulator.url,
      PLATFORM_API_KEY: apiKey,
      ARTIFACT_DIR: artifactDir,
      LOG_LEVEL: options.workerLogLevel ?? 'WARN',
      [WORKFLOW_BUNDLE_ENV]: bundle,
    };
    const workerLog = logFile('worker.log');
    const runUntilAll = async <R>(
      count: number,
      run: (procs: WorkerProcess[]) => Promise<R>,
      env: Record<string, string> = {},
    ): Promise<R> => {
      const started = await Promise.allSettled(
        Array.from({ length: count }, () => startWorkerProcess({ ...workerEnv, ...env }, log, workerLog)),
      );
      const procs = started.flatMap((p) => (p.status === 'fulfilled' ? [p.value] : []));
      try {
        const failed = started.find((p) => p.status === 'rejected');
        if (failed) throw failed.reason;
        return await run(procs);
      } finally {
        await Promise.all(procs.map((p) => p.stop()));
      }
    };
    const worker: BenchWorker = {
      runUntil: (run, env) => runUntilAll(1, ([proc]) => run(proc), env),
      runUntilAll,
      start: async () => {
        const proc = await startWorkerProcess(workerEnv, log, workerLog);
        stops.unshift(() => proc.stop());
        return proc;
      },
    };
    return await fn({
      emulatorUrl: emulator.url,
      admin,
      platform,
      client,
      taskQueue,
      artifactDir,
      worker,
      server: server.bench,
    });
  } catch (err) {
    // Said now: a client call still retrying when the connection closes below can end the process
    // before the caller gets to report this.
    log(`failed: ${err instanceof Error ? err.message : String(err)}; stopping the stack`);
    throw err;
  } finally {
    for (const stop of stops) await stop();
  }
}

interface StartedServer {
  bench: BenchServer;
  stop(): Promise<void>;
}

/** The dev server on a SQLite file in `dataDir`, tuned for load, its metrics on `metricsPort`. */
async function startDevServerOf(
  dataDir: string,
  metricsPort: number,
  logFile: string | undefined,
  log: (msg: string) => void,
): Promise<StartedServer> {
  const serverOptions = {
    binaries: await findOrBuildClusterBinaries(log),
    port: await getFreePort(),
    headless: true,
    searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
    dbFile: path.join(dataDir, 'temporal.sqlite'),
    sqlitePragmas: BENCH_SQLITE_PRAGMAS,
    metricsPort,
    log: logFile ? (line: string) => appendFileSync(logFile, `${line}\n`) : () => {},
  };
  let server = await startDevServer(serverOptions);
  const bench: BenchServer = {
    kind: 'dev-server',
    address: server.address,
    namespace: server.namespace,
    metricsUrl: server.metricsUrl!,
    sampler: new ProcSampler(server.pid, 1_000).start(),
    restart: async () => {
      bench.sampler.stop();
      await server.stop();
      server = await startDevServer(serverOptions);
      bench.sampler = new ProcSampler(server.pid, 1_000).start();
    },
  };
  return {
    bench,
    stop: async () => {
      bench.sampler.stop();
      await server.stop();
    },
  };
}

/**
 * The production topology (`npm run cluster`'s startCluster, with no UI) in `dataDir`, on free ports:
 * PostgreSQL, the Temporal server with its metrics on `metricsPort`, the `default` namespace and the
 * service's search attributes.
 */
async function startClusterServer(
  dataDir: string,
  metricsPort: number,
  log: (msg: string) => void,
): Promise<StartedServer> {
  // As root, PostgreSQL runs as the postgres user, who must be able to reach its data directory.
  chmodSync(dataDir, 0o755);
  const started = Date.now();
  const cluster = await startCluster({
    dataDir,
    postgresPort: await getFreePort(),
    postgresPassword: DEFAULT_POSTGRES_PASSWORD,
    ports: await freeServerPorts(),
    namespace: 'default',
    metricsPort,
    log,
  });
  log(`cluster up in ${Math.round((Date.now() - started) / 1000)} s (logs in ${cluster.logDir})`);
  const bench: BenchServer = {
    kind: 'cluster',
    address: cluster.address,
    namespace: cluster.namespace,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    sampler: new ProcSampler(cluster.server().pid, 1_000).start(),
    database: postgresFigures(path.join(dataDir, 'postgresql', 'data')),
    restart: async () => {
      bench.sampler.stop();
      await cluster.restartServer();
      bench.sampler = new ProcSampler(cluster.server().pid, 1_000).start();
    },
  };
  return {
    bench,
    stop: async () => {
      bench.sampler.stop();
      await cluster.stop();
    },
  };
}

/** PostgreSQL's figures from its data directory: its postmaster's pid file, and the directory's size. */
function postgresFigures(pgData: string): NonNullable<BenchServer['database']> {
  const postmaster = () => Number(readFileSync(path.join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    cpuMs: () => readTreeCpuMs(postmaster()),
    sizeBytes: () => Number(execFileSync('du', ['-sb', pgData], { encoding: 'utf8' }).split('\t')[0]),
  };
}
