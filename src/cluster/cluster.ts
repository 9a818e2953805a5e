// The production topology's Temporal side, from nothing: PostgreSQL (installed, initialised and
// started in the cluster's own folder), the schemas, the Temporal server, the namespace with the
// service's search attributes, and the Web UI server. A second start reuses the data.
import * as path from 'path';
import { findOrBuildClusterBinaries, type ClusterBinaries } from './go-binaries';
import { setUpNamespace } from './namespace';
import { findOrInstallPostgres, startPostgres, type PostgresHandle } from './postgres';
import { setUpSchemas } from './schema';
import { POSTGRES_USER, type ServerPorts } from './server-config';
import { startTemporalServer, type TemporalServerHandle } from './temporal-server';
import { startUiServer, type UiServerHandle } from './ui-server';

interface ClusterOptions {
  /** Everything the cluster keeps: PostgreSQL's data, the UI's config, the logs. */
  dataDir: string;
  postgresPort: number;
  postgresPassword: string;
  ports: ServerPorts;
  /** The Web UI's port; none when undefined. */
  uiPort?: number;
  namespace: string;
  /** The server's Prometheus endpoint, when wanted. */
  metricsPort?: number;
  log: (msg: string) => void;
}

export interface ClusterHandle {
  address: string;
  namespace: string;
  uiUrl?: string;
  logDir: string;
  server(): TemporalServerHandle;
  postgres(): PostgresHandle;
  /** Stops the server process (SIGTERM) and starts a new one on the same ports and data. */
  restartServer(): Promise<void>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** UI, server, then PostgreSQL. */
  stop(): Promise<void>;
}

export async function startCluster(opts: ClusterOptions): Promise<ClusterHandle> {
  const { log } = opts;
  const logDir = path.join(opts.dataDir, 'logs');
  const binaries: ClusterBinaries = await findOrBuildClusterBinaries((m) => log(`[build] ${m}`));
  const pgBin = await findOrInstallPostgres(log);
  const pgOptions = {
    dir: path.join(opts.dataDir, 'postgresql'),
    port: opts.postgresPort,
    user: POSTGRES_USER,
    password: opts.postgresPassword,
    log,
  };
  const serverOptions = {
    binary: binaries.server,
    postgresPort: opts.postgresPort,
    postgresPassword: opts.postgresPassword,
    ports: opts.ports,
    metricsPort: opts.metricsPort,
    logDir,
    log,
  };

  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((err: unknown) => log(`while stopping: ${String(err)}`));
  };
  try {
    log(`Starting PostgreSQL on 127.0.0.1:${opts.postgresPort} (data in ${pgOptions.dir})…`);
    let postgres = await startPostgres(pgBin, pgOptions);
    stops.push(() => postgres.stop());
    await setUpSchemas({
      sqlTool: binaries.sqlTool,
      port: opts.postgresPort,
      user: POSTGRES_USER,
      password: opts.postgresPassword,
      log,
    });

    log(`Starting the Temporal server on 127.0.0.1:${opts.ports.frontend}…`);
    let server = await startTemporalServer(serverOptions);
    stops.push(() => server.stop());
    await setUpNamespace(server.address, opts.namespace, log);

    let ui: UiServerHandle | undefined;
    if (opts.uiPort !== undefined) {
      ui = await startUiServer({
        binary: binaries.uiServer,
        dir: path.join(opts.dataDir, 'ui-server'),
        temporalAddress: server.address,
        port: opts.uiPort,
        namespace: opts.namespace,
        log,
      });
      const started = ui;
      stops.push(() => started.stop());
    }

    return {
      address: server.address,
      namespace: opts.namespace,
      uiUrl: ui?.url,
      logDir,
      server: () => server,
      postgres: () => postgres,
      async restartServer() {
        await server.stop();
        server = await startTemporalServer(serverOptions);
      },
      stopPostgres: () => postgres.stop(),
      async startPostgres() {
        postgres = await startPostgres(pgBin, pgOptions);
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
