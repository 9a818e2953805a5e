// The Temporal server and its Web UI server as processes, and a namespace on them: what `npm run cluster` (on
// PostgreSQL) and the dev server (on SQLite, src/devserver/dev-server.ts) both run, from the builds of versions.ts.
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

interface ServerProcessOptions {
  /** The server binary (findOrBuildClusterBinaries' `server`). */
  binary: string;
  /** Its whole environment, which its embedded config template reads (server-config.ts). */
  env: NodeJS.ProcessEnv;
  /** The frontend's port, asked until it answers. */
  port: number;
  readyTimeoutMs: number;
  name?: string;
  /** Before `start`; `--root <dir>` names the folder a process belongs to on its command line (see devServerDir). */
  args?: string[];
  cwd?: string;
  logFile?: string;
  onLine?: (line: string) => void;
  log: (msg: string) => void;
  graceMs?: number;
  exitSignal?: NodeJS.Signals;
}

/** The server, all four services in one process, once its frontend answers. */
export async function startTemporalServer(opts: ServerProcessOptions): Promise<ManagedProcess> {
  const child = startManagedProcess({
    name: opts.name ?? 'The Temporal server',
    file: opts.binary,
    // No config flags: the server then renders its embedded template from the environment.
    args: [...(opts.args ?? []), '--allow-no-auth', 'start'],
    env: opts.env,
    cwd: opts.cwd,
    logFile: opts.logFile,
    onLine: opts.onLine,
    log: opts.log,
    // SIGTERM: the server leaves its membership ring and closes its shards (and its database) before exiting.
    graceMs: opts.graceMs ?? 30_000,
    exitSignal: opts.exitSignal,
  });
  await child.ready(() => frontendAnswers(HOST, opts.port), opts.readyTimeoutMs);
  return child;
}

/**
 * Resolves once the frontend answers a real RPC (serving `namespace`, when given): an open socket is
 * not yet a server that is up. A TCP connect first, because it is cheap and fails at once.
 */
export async function frontendAnswers(host: string, port: number, namespace?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 1_000 }, () => resolve(void socket.destroy()));
    socket.once('timeout', () => socket.destroy(new Error(`connect to ${host}:${port} timed out`)));
    socket.once('error', reject);
  });
  const connection = await Connection.connect({ address: `${host}:${port}`, connectTimeout: 2_000 });
  try {
    if (namespace) await connection.workflowService.describeNamespace({ namespace });
    else await connection.workflowService.getSystemInfo({});
  } finally {
    await connection.close();
  }
}

interface UiServerOptions {
  /** Its `config/development.yaml` (written anew on each start) and its log go here. */
  dir: string;
  port: number;
  /** The frontend it shows. */
  address: string;
  namespace: string;
  log: (msg: string) => void;
  exitSignal?: NodeJS.Signals;
  /** The codec server the UI asks to decode the service's encrypted payloads (src/codec/server.ts). */
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
  // JSON is YAML: no YAML writer needed for a flat config.
  const config = {
    temporalGrpcAddress: opts.address,
    // Loopback only, like the server it shows: the UI can cancel and terminate workflows.
    host: HOST,
    port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    notifyOnNewVersion: false,
    cors: { allowOrigins: [url, `http://localhost:${port}`] },
    // The browser calls it; the UI's own server never sees a decrypted payload.
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

/** `fn`, again while it finds no namespace: a namespace just registered reaches the server's cache a moment later. */
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
