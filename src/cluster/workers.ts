// The cluster's worker processes (`lib/src/worker.js`), on one task queue.
import { existsSync } from 'fs';
import * as path from 'path';
import { findProjectRoot } from '../config/settings';
import { startManagedProcess, type ManagedProcess } from '../devserver/processes';

const READY_TIMEOUT_MS = 120_000;
const READY_LINE = /"message":"Worker started"/;

interface WorkerPoolOptions {
  count: number;
  /** Of the processes and their log files (`<name>-1.log` …): `worker` unless given. */
  name?: string;
  env: NodeJS.ProcessEnv;
  logDir: string;
  log: (msg: string) => void;
}

export type WorkerPool = Awaited<ReturnType<typeof startWorkerPool>>;

export async function startWorkerPool(opts: WorkerPoolOptions) {
  const entry = path.join(findProjectRoot(), 'lib', 'src', 'worker.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm run cluster does)`);
  const workers: ManagedProcess[] = [];
  // The worker's own grace time and a little more.
  const graceMs = (Number(opts.env.WORKER_SHUTDOWN_GRACE_SECONDS ?? 20) + 10) * 1000;
  const start = async (i: number): Promise<void> => {
    let polling = false;
    const name = `${opts.name ?? 'worker'}-${i + 1}`;
    const child = startManagedProcess({
      name,
      file: process.execPath,
      args: [entry],
      env: opts.env,
      logFile: path.join(opts.logDir, `${name}.log`),
      onLine: (line) => (polling ||= READY_LINE.test(line)),
      log: opts.log,
      graceMs,
    });
    workers[i] = child;
    const notYet = new Error('it has not logged "Worker started"');
    await child.ready(() => (polling ? Promise.resolve() : Promise.reject(notYet)), READY_TIMEOUT_MS);
  };
  const stopOne = async (i: number, signal: NodeJS.Signals): Promise<void> => void (await workers[i]?.stop({ signal }));
  try {
    await Promise.all(Array.from({ length: opts.count }, (_, i) => start(i)));
  } catch (err) {
    await Promise.all(workers.map((_, i) => stopOne(i, 'SIGKILL')));
    throw err;
  }
  return {
    workers: workers as ReadonlyArray<ManagedProcess>,
    /** Stops worker i (SIGTERM: it drains) or kills it (SIGKILL: it does not), then starts a new one in its place. */
    async restart(i: number, how: 'drain' | 'kill' = 'drain') {
      await stopOne(i, how === 'kill' ? 'SIGKILL' : 'SIGTERM');
      await start(i);
    },
    kill: (i: number) => stopOne(i, 'SIGKILL'),
    async stop() {
      await Promise.all(workers.map((_, i) => stopOne(i, 'SIGTERM')));
    },
  };
}
