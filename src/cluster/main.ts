// `npm run cluster`: the production topology on this machine, with no Docker (docs/cluster.md). Ctrl-C drains the
// workers, then stops the rest.
import { setUpNexus } from '../nexus/setup';
import { loadTemporalSettings, loadWorkerSettings } from '../config/settings';
import { createLogger, linesOf, logFormatOf } from '../logging';
import { announce, makeLocalKey, startLocalCodecServer, startLocalPlatform } from '../starter/commands/up';
import { startCluster } from './cluster';
import { DEFAULT_SERVER_PORTS, loadClusterSettings } from '../devserver/server-config';
import { startWorkerPool } from './workers';
import { runMain } from '../process-entry';

/** Resolves at the first SIGINT or SIGTERM once `isUp()`; before that, and at a second signal, the process ends. */
function stopRequested(isUp: () => boolean): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (!isUp()) process.exit(130);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      process.once('SIGINT', () => process.exit(130));
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

async function main(): Promise<void> {
  const { LOG_LEVEL, LOG_FORMAT } = loadWorkerSettings();
  const format = logFormatOf(LOG_FORMAT);
  const logger = createLogger(LOG_LEVEL, format);
  const out = linesOf(logger, 'cluster');
  const settings = loadClusterSettings();
  let up = false;
  const stop = stopRequested(() => up);
  // The cluster is started here, so a TEMPORAL_ADDRESS of the shell does not apply; the namespace does.
  const { namespace, taskQueue } = loadTemporalSettings({ ...process.env, TEMPORAL_ADDRESS: undefined });
  const stops: Array<() => Promise<void>> = [];
  try {
    makeLocalKey(out);
    const codec = await startLocalCodecServer(settings.CLUSTER_UI_PORT);
    if (codec) stops.push(() => codec.close());
    const cluster = await startCluster({
      dataDir: settings.CLUSTER_DATA_DIR,
      postgresPort: settings.CLUSTER_POSTGRES_PORT,
      postgresPassword: settings.POSTGRES_PASSWORD,
      ports: { ...DEFAULT_SERVER_PORTS, frontend: settings.CLUSTER_FRONTEND_PORT },
      uiPort: settings.CLUSTER_UI_PORT,
      codecEndpoint: codec?.url,
      namespace,
      log: out,
    });
    stops.push(() => cluster.stop());
    await setUpNexus({ address: cluster.address, namespace, taskQueue, log: out });
    stops.push(await startLocalPlatform(out));

    out(`Starting ${settings.CLUSTER_WORKERS} worker processes…`);
    const { METRICS_PORT: _oneProcessOnly, ...env } = process.env;
    const workers = await startWorkerPool({
      count: settings.CLUSTER_WORKERS,
      // Their build becomes current, as with `npm start`; JSON logs into their files.
      env: {
        WORKER_MAKE_CURRENT: 'always',
        ...env,
        LOG_FORMAT: 'json',
        TEMPORAL_ADDRESS: cluster.address,
        TEMPORAL_NAMESPACE: namespace,
      },
      logDir: cluster.logDir,
      log: out,
    });
    stops.push(() => workers.stop());

    announce(logger, format, {
      component: 'cluster',
      heading: 'The cluster is up (Temporal on PostgreSQL, several workers).',
      uiUrl: cluster.uiUrl,
      address: cluster.address,
      taskQueue,
      more: [
        `PostgreSQL:       127.0.0.1:${settings.CLUSTER_POSTGRES_PORT}  (data in ${settings.CLUSTER_DATA_DIR})`,
        `Workers:          ${workers.workers.map((w) => `pid ${w.pid}`).join(', ')}`,
        `Logs:             ${cluster.logDir}`,
        ...(settings.CLUSTER_FRONTEND_PORT === DEFAULT_SERVER_PORTS.frontend
          ? []
          : [`Starter:          export TEMPORAL_ADDRESS=${cluster.address} first`]),
      ],
    });
    up = true;
    const signal = await stop;
    out(`${signal}: draining the workers, then stopping the rest…`);
  } finally {
    for (const s of stops.reverse()) await s().catch((err: unknown) => out(`while stopping: ${String(err)}`));
  }
}

runMain('The cluster stopped', main);
