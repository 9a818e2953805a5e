// The Temporal server and its Web UI server as processes, and a namespace on them: what the cluster and the dev
// server both run.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs, type Duration } from '@temporalio/common';
import { promises as fs } from 'fs';
import * as net from 'net';
import * as path from 'path';
import { sleep, startManagedProcess, type ManagedProcess } from './processes';

const HOST = '127.0.0.1';
const UI_READY_TIMEOUT_MS = 60_000;
const NAMESPACE_SETTLE_TIMEOUT_MS = 60_000;
// gRPC codes: the namespace exists already; it is not in the server's namespace cache yet.
const ALREADY_EXISTS = 6;
const NOT_FOUND = 5;

type ServerProcessOptions = Omit<Parameters<typeof startManagedProcess>[0], 'name' | 'file' | 'args'> & {
  binary: string;
  /** The frontend's. */
  port: number;
  readyTimeoutMs: number;
  name?: string;
  /** Before `start`. */
  args?: string[];
};

/** All four services in one process, once its frontend answers; env is what its embedded config template reads. */
export async function startTemporalServer(opts: ServerProcessOptions): Promise<ManagedProcess> {
  const { binary, port, readyTimeoutMs, name, args, ...rest } = opts;
  const child = startManagedProcess({
    ...rest,
    name: name ?? 'The Temporal server',
    file: binary,
    // No config flags: the server renders its embedded template from the environment.
    args: [...(args ?? []), '--allow-no-auth', 'start'],
    // SIGTERM: the server leaves its membership ring and closes its shards (and its database) before exiting.
    graceMs: opts.graceMs ?? 30_000,
  });
  await child.ready(() => frontendAnswers(port), readyTimeoutMs);
  return child;
}

/** Resolves once the frontend answers a real RPC, after a TCP connect that is cheap and fails at once. */
async function frontendAnswers(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: HOST, port, timeout: 1_000 }, () => resolve(void socket.destroy()));
    socket.once('timeout', () => socket.destroy(new Error(`connect to ${HOST}:${port} timed out`)));
    socket.once('error', reject);
  });
  const connection = await Connection.connect({ address: `${HOST}:${port}`, connectTimeout: 2_000 });
  try {
    await connection.workflowService.getSystemInfo({});
  } finally {
    await connection.close();
  }
}

interface UiServerOptions {
  /** Holds its `config/development.yaml`, written anew on each start, and its log. */
  dir: string;
  port: number;
  /** The frontend's. */
  address: string;
  namespace: string;
  log: (msg: string) => void;
  exitSignal?: NodeJS.Signals;
  codecEndpoint?: string;
}

/** The Web UI server, once it serves its page. */
export async function startUiServer(
  binary: string,
  opts: UiServerOptions,
): Promise<{ url: string; process: ManagedProcess }> {
  const { dir, port } = opts;
  const url = `http://${HOST}:${port}`;
  const configDir = path.join(dir, 'config');
  await fs.mkdir(configDir, { recursive: true });
  // JSON is YAML.
  const config = {
    temporalGrpcAddress: opts.address,
    // Loopback only, like the server it shows: the UI can cancel and terminate workflows.
    host: HOST,
    port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    notifyOnNewVersion: false,
    cors: { allowOrigins: [url, `http://localhost:${port}`] },
    ...(opts.codecEndpoint ? { codec: { endpoint: opts.codecEndpoint } } : {}),
  };
  await fs.writeFile(path.join(configDir, 'development.yaml'), `${JSON.stringify(config, null, 2)}\n`);
  const child = startManagedProcess({
    name: 'The Temporal UI server',
    file: binary,
    args: ['--root', dir, '--env', 'development', 'start'],
    logFile: path.join(dir, 'temporal-ui.log'),
    log: opts.log,
    exitSignal: opts.exitSignal,
  });
  const answers = async (): Promise<void> => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  };
  await child.ready(answers, UI_READY_TIMEOUT_MS);
  return { url, process: child };
}

const hasCode = (err: unknown, code: number): boolean => isGrpcServiceError(err) && (err.code as number) === code;

/** Registers `namespace` unless it exists; true when this call registered it. */
export async function registerNamespace(
  connection: Connection,
  namespace: string,
  retention: Duration,
  log: (msg: string) => void,
): Promise<boolean> {
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(retention),
    });
    log(`Registered namespace ${namespace}.`);
    return true;
  } catch (err) {
    if (!hasCode(err, ALREADY_EXISTS)) throw err;
    return false;
  }
}

/** `fn`, again while it finds no namespace: a new one reaches the server's cache a moment later. */
export async function onceNamespaceSettles<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + NAMESPACE_SETTLE_TIMEOUT_MS;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!hasCode(err, NOT_FOUND) || Date.now() > deadline) throw err;
      await sleep(250);
    }
  }
}
