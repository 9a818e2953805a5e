// One long-running child of the cluster (PostgreSQL, the Temporal server, the UI server, a worker):
// its output goes to a log file of its own, an unexpected exit is reported with the log's tail, and
// it can be stopped, killed and awaited. Each child has its own process group, so a Ctrl-C in the
// terminal reaches only `npm run cluster`, which then stops them in order.
import { spawn } from 'child_process';
import { createWriteStream, mkdirSync } from 'fs';
import * as path from 'path';
import { createInterface } from 'readline';

interface ManagedProcessOptions {
  name: string;
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The child's output is appended here. */
  logFile: string;
  /** Told about an exit nobody asked for, with the last lines of output. */
  onUnexpectedExit?: (message: string) => void;
}

interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process has exited (and its output is flushed). */
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  /** The last lines of output, for error messages. */
  tail(): string;
  /** Resolves at the first line of output (from now on) that matches; rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Sends `signal` (SIGTERM by default), then SIGKILL after graceMs; resolves once it has exited. */
  stop(opts?: { signal?: NodeJS.Signals; graceMs?: number }): Promise<ExitStatus>;
}

const TAIL_LINES = 30;

export function startManagedProcess(opts: ManagedProcessOptions): ManagedProcess {
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  log.write(`--- ${new Date().toISOString()} ${opts.file} ${opts.args.join(' ')}\n`);
  const child = spawn(opts.file, opts.args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const watchers = new Set<(line: string) => void>();
  const onLine = (line: string): void => {
    for (const watch of watchers) watch(line);
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    log.write(`${line}\n`);
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);

  let running = true;
  let stopping = false;
  const exited = new Promise<ExitStatus>((resolve) => {
    const done = (status: ExitStatus): void => {
      running = false;
      process.removeListener('exit', killOnExit);
      log.end(() => resolve(status));
      if (!stopping) {
        const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
        opts.onUnexpectedExit?.(`${opts.name} exited (${how}); see ${opts.logFile}:\n${lines.join('\n')}`);
      }
    };
    child.once('close', (code, signal) => done({ code, signal }));
    child.once('error', (err) => {
      onLine(String(err));
      done({ code: null, signal: null });
    });
  });
  // Best effort against orphans when this process exits without stopping its children.
  const killOnExit = (): void => {
    if (running) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  return {
    name: opts.name,
    pid: child.pid ?? -1,
    logFile: opts.logFile,
    exited,
    isRunning: () => running,
    tail: () => lines.join('\n'),
    waitForLine(pattern, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        const finish = (err?: Error): void => {
          watchers.delete(watch);
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        };
        const watch = (line: string): void => {
          if (pattern.test(line)) finish();
        };
        const timer = setTimeout(
          () =>
            finish(
              new Error(
                `${opts.name} printed no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}`,
              ),
            ),
          timeoutMs,
        );
        watchers.add(watch);
        void exited.then(() =>
          finish(new Error(`${opts.name} exited before printing ${pattern}:\n${lines.join('\n')}`)),
        );
      });
    },
    async stop({ signal = 'SIGTERM', graceMs = 15_000 } = {}) {
      stopping = true;
      if (running) child.kill(signal);
      const timer = setTimeout(() => {
        if (running) child.kill('SIGKILL');
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
