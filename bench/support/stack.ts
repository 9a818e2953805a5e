// The stack a workflow benchmark runs on: the compiled emulator in a process of its own, loaded with
// the benchmark's fixtures, a real Temporal dev server (its SQLite file in a temp folder, tuned for
// load, its Prometheus metrics on a known port), and the service's worker in a process of its own
// (worker-main) on a fresh task queue, so its memory and CPU can be read apart from the benchmark's.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/api/names';
import { findOrBuildTemporalCli, getFreePort, startDevServer } from '../../src/devserver';
import { DEV_API_KEY } from '../../src/emulator/config';
import { DEFAULT_PATHS, PlatformClient } from '../../src/platform';
import { startEmulatorProcess } from './emulator-process';
import { ProcSampler } from './proc-stats';
import { bundleBenchWorkflows, WORKFLOW_BUNDLE_ENV } from './worker-main';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

export interface BenchWorker {
  /**
   * Starts a fresh worker process, runs `fn` while it polls, then stops it (drained) however `fn`
   * ends. Each call is a new process, so each phase of a benchmark starts from the same memory.
   */
  runUntil<R>(fn: (proc: WorkerProcess) => Promise<R>): Promise<R>;
  /** Starts a worker process the caller stops (or kills); the stack stops it at the end if still up. */
  start(): Promise<WorkerProcess>;
}

export interface BenchServer {
  address: string;
  namespace: string;
  /** The dev server's Prometheus endpoint (`service_requests` by operation). */
  metricsUrl: string;
  /** The dev server's own process, read every second (the new process after a restart). */
  sampler: ProcSampler;
  /** Stops the dev server (SIGTERM) and starts it again on the same SQLite file, port and metrics port. */
  restart(): Promise<void>;
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
export const BENCH_SQLITE_PRAGMAS = { journal_mode: 'WAL', synchronous: 'OFF' };

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
  const logFile = (file: string) => (options.logDir ? path.join(options.logDir, file) : undefined);
  const emulator = await startEmulatorProcess(
    undefined,
    options.logDir ? { EMULATOR_LOG: '1' } : {},
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
    const [cliPath, bundle, metricsPort] = await Promise.all([
      findOrBuildTemporalCli({ log }),
      benchBundleFile(log),
      getFreePort(),
    ]);
    const serverLog = logFile('temporal.log');
    const serverOptions = {
      cliPath,
      port: await getFreePort(),
      headless: true,
      searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
      dbFile: path.join(dataDir, 'temporal.sqlite'),
      sqlitePragmas: BENCH_SQLITE_PRAGMAS,
      metricsPort,
      log: serverLog ? (line: string) => appendFileSync(serverLog, `${line}\n`) : () => {},
    };
    let server = await startDevServer(serverOptions);
    stops.unshift(() => server.stop());
    let serverSampler = new ProcSampler(server.pid, 1_000).start();
    stops.unshift(() => Promise.resolve(serverSampler.stop()));
    const connection = await Connection.connect({ address: server.address });
    stops.unshift(() => connection.close());
    const client = new Client({ connection, namespace: server.namespace });
    const taskQueue = `bench-${name}-${randomUUID().slice(0, 8)}`;
    // The settings a deployed worker reads (src/worker.ts's runWorker), pointed at this stack; the
    // worker's own tuning (WORKER_*) keeps its defaults unless the caller's environment sets it.
    const workerEnv = {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PLATFORM_BASE_URL: emulator.url,
      PLATFORM_API_KEY: apiKey,
      ARTIFACT_DIR: artifactDir,
      LOG_LEVEL: options.workerLogLevel ?? 'WARN',
      [WORKFLOW_BUNDLE_ENV]: bundle,
    };
    const workerLog = logFile('worker.log');
    const worker: BenchWorker = {
      runUntil: async (run) => {
        const proc = await startWorkerProcess(workerEnv, log, workerLog);
        try {
          return await run(proc);
        } finally {
          await proc.stop();
        }
      },
      start: async () => {
        const proc = await startWorkerProcess(workerEnv, log, workerLog);
        stops.unshift(() => proc.stop());
        return proc;
      },
    };
    const benchServer: BenchServer = {
      address: server.address,
      namespace: server.namespace,
      metricsUrl: server.metricsUrl!,
      sampler: serverSampler,
      restart: async () => {
        serverSampler.stop();
        await server.stop();
        server = await startDevServer(serverOptions);
        benchServer.sampler = serverSampler = new ProcSampler(server.pid, 1_000).start();
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
      server: benchServer,
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
