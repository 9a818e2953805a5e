// The production topology's Temporal side, from nothing: PostgreSQL in the cluster's own folder, the schemas, the
// Temporal server, the namespace with the service's search attributes, and the Web UI. A second start reuses it.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { promises as fs } from 'fs';
import * as path from 'path';
import { frontendAnswers } from '../devserver/dev-server';
import { sleep, startManagedProcess, type ManagedProcess } from '../devserver/processes';
import { ensureSearchAttributes } from '../namespace/search-attributes';
import { findOrInstallPostgres, setUpSchemas, startPostgres } from './postgres';
import { POSTGRES_USER, serverEnv, type ServerEnvOptions } from './server-config';
import { findOrBuildClusterBinaries } from './versions';

interface ClusterOptions extends ServerEnvOptions {
  /** Everything the cluster keeps: PostgreSQL's data, the UI's config, the logs. */
  dataDir: string;
  /** The Web UI's port; none when undefined. */
  uiPort?: number;
  namespace: string;
  log: (msg: string) => void;
}

export type ClusterHandle = Awaited<ReturnType<typeof startCluster>>;

const SERVER_READY_TIMEOUT_MS = 120_000;
const UI_READY_TIMEOUT_MS = 60_000;
/** How long closed workflows stay visible. */
const RETENTION = '3 days';
const NAMESPACE_SETTLE_TIMEOUT_MS = 60_000;
// gRPC codes: the namespace exists already; it is not in the server's namespace cache yet.
const ALREADY_EXISTS = 6;
const NOT_FOUND = 5;

export async function startCluster(opts: ClusterOptions) {
  const { log } = opts;
  const logDir = path.join(opts.dataDir, 'logs');
  const address = `127.0.0.1:${opts.ports.frontend}`;
  const binaries = await findOrBuildClusterBinaries((m) => log(`[build] ${m}`));
  const pgBin = await findOrInstallPostgres(log);
  const pgOptions = {
    dir: path.join(opts.dataDir, 'postgresql'),
    port: opts.postgresPort,
    user: POSTGRES_USER,
    password: opts.postgresPassword,
    log,
  };
  const startServer = async (): Promise<ManagedProcess> => {
    const child = startManagedProcess({
      name: 'The Temporal server',
      file: binaries.server,
      // No config flags: the server then renders its embedded template from the environment.
      args: ['--allow-no-auth', 'start'],
      env: serverEnv(opts),
      logFile: path.join(logDir, 'temporal-server.log'),
      log,
      // SIGTERM: the server leaves its membership ring and closes its shards before exiting.
      graceMs: 30_000,
    });
    await child.ready(() => frontendAnswers('127.0.0.1', opts.ports.frontend), SERVER_READY_TIMEOUT_MS);
    return child;
  };

  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((err: unknown) => log(`while stopping: ${String(err)}`));
  };
  try {
    log(`Starting PostgreSQL on 127.0.0.1:${opts.postgresPort} (data in ${pgOptions.dir})…`);
    let postgres = await startPostgres(pgBin, pgOptions);
    stops.push(() => postgres.stop());
    await setUpSchemas({ ...pgOptions, sqlTool: binaries.sqlTool });

    log(`Starting the Temporal server on ${address}…`);
    let server = await startServer();
    stops.push(() => server.stop());
    await setUpNamespace(address, opts.namespace, log);

    let uiUrl: string | undefined;
    if (opts.uiPort !== undefined) {
      const ui = await startUiServer(binaries.uiServer, opts.uiPort, { ...opts, address });
      uiUrl = ui.url;
      stops.push(() => ui.process.stop());
    }

    return {
      address,
      namespace: opts.namespace,
      uiUrl,
      logDir,
      server: () => server,
      /** Stops the server process (SIGTERM) and starts a new one on the same ports and data. */
      async restartServer() {
        await server.stop();
        server = await startServer();
      },
      stopPostgres: async () => void (await postgres.stop()),
      async startPostgres() {
        postgres = await startPostgres(pgBin, pgOptions);
      },
      /** UI, server, then PostgreSQL. */
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The Web UI server, on the cluster's frontend; its `<dir>/config/<env>.yaml` is written anew on each start. */
async function startUiServer(
  binary: string,
  port: number,
  opts: ClusterOptions & { address: string },
): Promise<{ url: string; process: ManagedProcess }> {
  const dir = path.join(opts.dataDir, 'ui-server');
  const url = `http://127.0.0.1:${port}`;
  const configDir = path.join(dir, 'config');
  await fs.mkdir(configDir, { recursive: true });
  // JSON is YAML: no YAML writer needed for a flat config.
  const config = {
    temporalGrpcAddress: opts.address,
    // Loopback only, like the server it shows: the UI can cancel and terminate workflows.
    host: '127.0.0.1',
    port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    notifyOnNewVersion: false,
    cors: { allowOrigins: [url, `http://localhost:${port}`] },
  };
  await fs.writeFile(path.join(configDir, 'development.yaml'), `${JSON.stringify(config, null, 2)}\n`);
  const child = startManagedProcess({
    name: 'The Temporal UI server',
    file: binary,
    args: ['--root', dir, '--env', 'development', 'start'],
    logFile: path.join(dir, 'temporal-ui.log'),
    log: opts.log,
  });
  const answers = async (): Promise<void> => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  };
  await child.ready(answers, UI_READY_TIMEOUT_MS);
  return { url, process: child };
}

/** The namespace and the service's search attributes, once: a new server knows no namespace, unlike the dev server. */
async function setUpNamespace(address: string, namespace: string, log: (msg: string) => void): Promise<void> {
  const connection = await Connection.connect({ address });
  const hasCode = (err: unknown, code: number): boolean => isGrpcServiceError(err) && (err.code as number) === code;
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(RETENTION),
      });
      log(`Registered namespace ${namespace}.`);
    } catch (err) {
      if (!hasCode(err, ALREADY_EXISTS)) throw err;
    }
    // A namespace just registered reaches the server's cache a moment later: until then it is "not found".
    const deadline = Date.now() + NAMESPACE_SETTLE_TIMEOUT_MS;
    for (;;) {
      try {
        await ensureSearchAttributes({ connection, namespace, address, register: true, log });
        return;
      } catch (err) {
        if (!hasCode(err, NOT_FOUND) || Date.now() > deadline) throw err;
        await sleep(500);
      }
    }
  } finally {
    await connection.close();
  }
}
