// The production topology's Temporal side: PostgreSQL in the cluster's own folder, the schemas, the Temporal
// server, the namespace with the service's search attributes, and the Web UI. A second start reuses it.
import { Connection } from '@temporalio/client';
import * as path from 'path';
import { type ManagedProcess } from '../devserver/processes';
import { ensureSearchAttributes } from '../namespace/search-attributes';
import { findOrInstallPostgres, setUpSchemas, startPostgres } from './postgres';
import { POSTGRES_USER, serverEnv, type ServerEnvOptions } from '../devserver/server-config';
import {
  onceNamespaceSettles,
  registerNamespace,
  startTemporalServer,
  startUiServer,
} from '../devserver/temporal-server';
import { findOrBuildClusterBinaries } from '../devserver/temporal-programs';

interface ClusterOptions extends ServerEnvOptions {
  /** PostgreSQL's data, the UI's config, the logs. */
  dataDir: string;
  /** No Web UI when undefined. */
  uiPort?: number;
  codecEndpoint?: string;
  namespace: string;
  log: (msg: string) => void;
}

export type ClusterHandle = Awaited<ReturnType<typeof startCluster>>;

const SERVER_READY_TIMEOUT_MS = 120_000;
const RETENTION = '3 days';

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
  const startServer = (): Promise<ManagedProcess> =>
    startTemporalServer({
      binary: binaries.server,
      env: serverEnv(opts),
      port: opts.ports.frontend,
      readyTimeoutMs: SERVER_READY_TIMEOUT_MS,
      logFile: path.join(logDir, 'temporal-server.log'),
      log,
    });

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
      const ui = await startUiServer(binaries.uiServer, {
        dir: path.join(opts.dataDir, 'ui-server'),
        port: opts.uiPort,
        address,
        namespace: opts.namespace,
        log,
        codecEndpoint: opts.codecEndpoint,
      });
      uiUrl = ui.url;
      stops.push(() => ui.process.stop());
    }
    return {
      address,
      namespace: opts.namespace,
      uiUrl,
      logDir,
      server: () => server,
      /** On the same ports and data. */
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

async function setUpNamespace(address: string, namespace: string, log: (msg: string) => void): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await registerNamespace(connection, namespace, RETENTION, log);
    await onceNamespaceSettles(() => ensureSearchAttributes({ connection, namespace, address, register: true, log }));
  } finally {
    await connection.close();
  }
}
