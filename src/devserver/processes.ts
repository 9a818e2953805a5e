// The children this project starts and watches: their output kept, an exit nobody asked for reported, waited for
// until they answer, stopped with a grace time, and stopped by a guard should this process end without stopping them.
import { execFile, spawn } from 'child_process';
import { constants as fsConstants, createWriteStream, mkdirSync, promises as fs } from 'fs';
import * as net from 'net';
import * as path from 'path';
import { createInterface } from 'readline';
import { boundedOutputLine } from '../logging';
import { guardChild } from './guard';

interface ManagedProcessOptions {
  name: string;
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logFile?: string;
  onLine?: (line: string) => void;
  /** Told about an exit nobody asked for (with the last lines of output), and about a forced kill. */
  log?: (msg: string) => void;
  /** Its own process group (the default): a Ctrl-C reaches only this process, which stops its children in order. */
  detached?: boolean;
  /** Sent when this process exits with the child still running. */
  exitSignal?: NodeJS.Signals;
  /** How stop() stops it by default. */
  stopSignal?: NodeJS.Signals;
  graceMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type ManagedProcess = ReturnType<typeof startManagedProcess>;

const TAIL_LINES = 40;
const PROBE_INTERVAL_MS = 250;

export function startManagedProcess(opts: ManagedProcessOptions) {
  let logStream: ReturnType<typeof createWriteStream> | undefined;
  if (opts.logFile) {
    mkdirSync(path.dirname(opts.logFile), { recursive: true });
    logStream = createWriteStream(opts.logFile, { flags: 'a' });
    logStream.write(`--- ${new Date().toISOString()} ${opts.file} ${opts.args.join(' ')}\n`);
  }
  const child = spawn(opts.file, opts.args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? true,
  });
  const lines: string[] = [];
  const tail = (): string => lines.join('\n');
  const see = opts.logFile ? `; see ${opts.logFile}` : '';
  const onLine = (whole: string): void => {
    const line = boundedOutputLine(whole);
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    logStream?.write(`${line}\n`);
    opts.onLine?.(line);
  };
  // Listed with this process's guard (./guard.ts).
  const { signalled, unguard } = guardChild(child.pid, {
    signal: opts.stopSignal ?? 'SIGTERM',
    graceMs: opts.graceMs ?? 15_000,
    group: opts.detached ?? true,
  });
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  let status: ExitStatus | undefined;
  // Either way, the exit is not news: ready() throws with it, or stop() asked for it.
  let starting = false;
  let stopping = false;
  // 'close' (not 'exit'), so the output is complete when the exit is reported.
  const exited = new Promise<ExitStatus>((resolve) => {
    const done = (exit: ExitStatus): void => {
      status = exit;
      unguard();
      process.removeListener('exit', killOnExit);
      if (!stopping && !starting) opts.log?.(`${opts.name} exited (${describe(exit)})${see}:\n${tail()}`);
      if (logStream) logStream.end(() => resolve(exit));
      else resolve(exit);
    };
    child.once('close', (code, signal) => done({ code, signal }));
    child.once('error', (err) => {
      onLine(String(err));
      done({ code: null, signal: null });
    });
  });
  const killOnExit = (): void => {
    child.kill(opts.exitSignal ?? 'SIGKILL');
    signalled();
  };
  process.on('exit', killOnExit);
  /** Sends `signal`, then SIGKILL after graceMs; resolves once it has exited. Safe to call twice. */
  const stop = async ({ signal = opts.stopSignal ?? 'SIGTERM', graceMs = opts.graceMs ?? 15_000 } = {}) => {
    stopping = true;
    if (status) return status;
    child.kill(signal);
    signalled();
    const timer = setTimeout(() => {
      opts.log?.(`${opts.name} (pid ${child.pid}) did not stop within ${graceMs / 1000} s; killing it`);
      child.kill('SIGKILL');
    }, graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    pid: child.pid ?? -1,
    /** Once the output is flushed too. */
    exited,
    isRunning: () => status === undefined,
    tail,
    stop,
    /** Polls `probe` until it resolves; on an exit or a timeout, stops the process and throws with the cause. */
    async ready(probe: () => Promise<unknown>, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      const exitedEarly = exited.then(() => 'exited');
      starting = true;
      try {
        for (;;) {
          const problem = await Promise.race([
            probe().then(
              () => undefined,
              (err: Error) => err.message,
            ),
            exitedEarly,
          ]);
          if (status) throw new Error(`${opts.name} exited during startup (${describe(status)})${see}:\n${tail()}`);
          if (problem === undefined) return;
          if (Date.now() > deadline)
            throw new Error(`${opts.name} did not answer within ${timeoutMs / 1000} s: ${problem}`);
          await Promise.race([sleep(PROBE_INTERVAL_MS), exited]);
        }
      } catch (err) {
        await stop();
        throw err;
      } finally {
        starting = false;
      }
    },
  };
}

const describe = (exit: ExitStatus): string => (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`);

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Its stdout (and then stderr, with `stderr`); rejects with its stderr (else stdout) when it fails. */
export function exec(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; stderr?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env: opts.env, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (!err) return resolve(opts.stderr ? stdout + stderr : stdout);
        reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${stderr.trim() || stdout || err.message}`));
      },
    );
  });
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

export async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    // An empty entry means the current directory: no stray binaries from there.
    if (!dir) continue;
    const candidate = path.resolve(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Listens on `port` for a moment (0: one the OS picks), and says which port it was. */
function listenOnce(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** The error when `port` cannot be listened on. */
export const tryListen = (host: string, port: number): Promise<NodeJS.ErrnoException | undefined> =>
  listenOnce(host, port).then(
    () => undefined,
    (err: NodeJS.ErrnoException) => err,
  );

/** A port that was free a moment ago (the OS picks it); another process may still grab it before we use it. */
export const getFreePort = (): Promise<number> => listenOnce('127.0.0.1', 0);

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Arguments joined by spaces. */
  args: string;
}

/** From /proc on Linux, else from `ps`; empty where neither answers. */
export async function listProcesses(): Promise<ProcessInfo[]> {
  if (process.platform === 'linux') {
    const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
    const found = await Promise.all(
      pids.map(async (pid): Promise<ProcessInfo[]> => {
        try {
          const [cmdline, stat] = await Promise.all([
            fs.readFile(`/proc/${pid}/cmdline`, 'utf8'),
            fs.readFile(`/proc/${pid}/stat`, 'utf8'),
          ]);
          // stat: "pid (comm) state ppid …", where comm may hold spaces and parentheses.
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return [{ pid: Number(pid), ppid, args: cmdline.split('\0').join(' ').trim() }];
        } catch {
          return [];
        }
      }),
    );
    return found.flat();
  }
  const table = await exec('ps', ['-axo', 'pid=,ppid=,args=']).catch(() => '');
  return table.split('\n').flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    return m ? [{ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }] : [];
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once `pid`, not our child, is gone. */
export async function stopPid(pid: number, graceMs: number): Promise<void> {
  for (const [signal, waitMs, pollMs] of [
    ['SIGTERM', graceMs, 100],
    ['SIGKILL', 5_000, 50],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
    const deadline = Date.now() + waitMs;
    while (isAlive(pid) && Date.now() < deadline) await sleep(pollMs);
    if (!isAlive(pid)) return;
  }
}
