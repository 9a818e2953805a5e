// Runs the project's compiled entry points (lib/, built by `npm test` before jest) as real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { testEnv } from '../setup/shared';

const LIB = path.join(__dirname, '..', '..', 'lib', 'src');

export function libEntry(relative: string): string {
  const file = path.join(LIB, relative);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm test does)`);
  return file;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <entry> …args` to completion. */
export function runNode(entry: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [libEntry(entry), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running process, collecting its output. */
export function startNode(
  entry: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [libEntry(entry), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

/** Whether something accepts connections on 127.0.0.1:port. */
export const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Environment for a child that must see only the variables given (no TEMPORAL_* from the user). */
export function cleanEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('TEMPORAL_') && !k.startsWith('PLATFORM_') && !k.startsWith('WORKER_')) env[k] = v;
  }
  return { ...env, ...vars };
}

/** The worker process's environment: the tests' dev server, `taskQueue`, a platform and its key, and `extra`. */
export function workerEnv(
  taskQueue: string,
  platform: { url: string; key: string },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return cleanEnv({
    TEMPORAL_ADDRESS: testEnv('temporalAddress'),
    TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PLATFORM_BASE_URL: platform.url,
    PLATFORM_API_KEY: platform.key,
    ...extra,
  });
}

/**
 * The worker process's environment against the tests' dev server and shared emulator, on `taskQueue`,
 * its metrics on `metricsPort`, `extra` added.
 */
export function workerProcessEnv(
  taskQueue: string,
  metricsPort: number,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return workerEnv(
    taskQueue,
    { url: testEnv('emulatorUrl'), key: DEV_API_KEY },
    {
      METRICS_PORT: String(metricsPort),
      // The shared emulator's minute is 6 real seconds (clock speed 10).
      RATE_LIMIT_WINDOW_SECONDS: '6',
      WORKER_SHUTDOWN_GRACE_SECONDS: '2',
      ...extra,
    },
  );
}

/** The starter CLI as a user runs it, against the tests' dev server, on `taskQueue`. */
export function runStarter(args: string[], taskQueue = 'unused-queue'): Promise<RunResult> {
  return runNode(
    'starter.js',
    args,
    cleanEnv({
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
      TEMPORAL_TASK_QUEUE: taskQueue,
    }),
  );
}
