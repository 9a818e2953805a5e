// Starts the benchmark's worker (worker-main) as a child process and watches its memory and CPU from
// /proc. The benchmark talks to it only through Temporal and the emulator.
import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { ProcSampler } from './proc-stats';

/** lib/bench/support/worker-main.js, from the compiled file or from the TypeScript source. */
function compiledWorkerMain(): string {
  const dir = __filename.endsWith('.js') ? __dirname : path.resolve(__dirname, '..', '..', 'lib', 'bench', 'support');
  return path.join(dir, 'worker-main.js');
}

export interface WorkerProcess {
  pid: number;
  /** Readings of the process every 250 ms from the moment it was ready until it stopped. */
  sampler: ProcSampler;
  /** Set when the process ended without being asked to (by stop): how it ended. */
  lost(): string | undefined;
  /** SIGTERM (the worker drains), SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

/**
 * Extra node flags for the worker process only, space-separated (profiling it: `--cpu-prof
 * --cpu-prof-dir=…`, `--heapsnapshot-signal=SIGUSR2`). NODE_OPTIONS would reach the bench process too.
 */
const WORKER_NODE_ARGS_ENV = 'BENCH_WORKER_NODE_ARGS';

function workerExecArgv(): string[] {
  return [...process.execArgv, ...(process.env[WORKER_NODE_ARGS_ENV] ?? '').split(' ').filter(Boolean)];
}
const TAIL_LINES = 40;

/**
 * Forks the worker with `env` on top of this process's environment minus every TEMPORAL_* and
 * PLATFORM_* variable (those are for the user's own server and platform, not the benchmark's). With
 * `logFile`, every line it prints is appended there instead of its warnings being echoed (the fault
 * suite reads its logs back, and a fault makes thousands of warnings).
 */
export function startWorkerProcess(
  env: Record<string, string>,
  log: (msg: string) => void,
  logFile?: string,
): Promise<WorkerProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_') && !k.startsWith('PLATFORM_')),
  );
  const child: ChildProcess = fork(compiledWorkerMain(), [], {
    env: { ...inherited, ...env },
    execArgv: workerExecArgv(),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const tail: string[] = [];
  if (logFile) {
    const sink = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(sink);
    child.stderr?.pipe(sink);
  }
  let stopping: Promise<void> | undefined;
  let lost: string | undefined;
  const onOutput = (echo: (line: string) => boolean) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      if (echo(line)) log(`[worker] ${line}`);
    }
  };
  // Its warnings and errors as they come (its logs are JSON lines on stdout); anything else it prints
  // (debug output of the code under test) only in the tail shown if it dies.
  child.stdout?.on(
    'data',
    onOutput((line) => !logFile && /^\{.*"level":"(WARN|ERROR)"/.test(line)),
  );
  // Once we stop it, what it says about draining is expected.
  child.stderr?.on(
    'data',
    onOutput(() => !stopping),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const sampler = new ProcSampler(child.pid ?? -1);
  const stop = (graceMs = 30_000): Promise<void> =>
    (stopping ??= (async () => {
      sampler.sample();
      sampler.stop();
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    })());

  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop(1_000).then(() => reject(new Error(`the bench worker ${why}:\n${tail.join('\n')}`)));
    };
    const timer = setTimeout(() => fail(`was not ready within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    let ready = false;
    child.once('exit', (code, signal) => {
      if (!ready) fail(`exited with ${code ?? signal} before it was ready`);
      else if (!stopping) {
        lost = `the bench worker exited on its own (${code ?? signal})`;
        log(lost);
      }
    });
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.on('message', (msg: { ready?: boolean }) => {
      if (!msg.ready || ready) return;
      ready = true;
      clearTimeout(timer);
      resolve({ pid: child.pid!, sampler: sampler.start(), lost: () => lost, stop });
    });
  });
}
