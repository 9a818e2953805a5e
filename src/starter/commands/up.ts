// `npm start`: the whole local stack from one command (docs/starter.md#up-the-local-stack).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTE_DEFINITIONS, SearchAttributes } from '../../api/contract';
import { loadDevServerPorts, loadTemporalSettings, loadWorkerSettings } from '../../config/settings';
import { SERVER_DEFAULT_PARTITIONS, startDevServer, taskQueuePartitions } from '../../devserver/dev-server';
import { findOrBuildTemporalCli, TemporalCliNotFoundError } from '../../devserver/find-temporal-cli';
import { installRuntime, runWorker } from '../../worker';
import { DEV_API_KEY, loadEmulatorConfig } from '../../../packages/emulator/src/config';
import { startEmulator } from '../../../packages/emulator/src/server';
import type { Out } from '../cli';
import { starterExamples } from '../workflow-inputs';

type Stop = () => Promise<void>;

/** One task queue partition for a new database (noted beside it); older data keeps the default: fewer strand tasks. */
export function partitionsForData(dbFile: string, out: Out): Record<string, number> {
  const note = `${dbFile}.partitions`;
  if (!existsSync(dbFile)) {
    mkdirSync(path.dirname(dbFile), { recursive: true });
    writeFileSync(note, '1\n');
  }
  if (existsSync(note) && readFileSync(note, 'utf8').trim() === '1') return taskQueuePartitions(1);
  out(
    `Keeping ${SERVER_DEFAULT_PARTITIONS} partitions per task queue for the data in ${dbFile} (written before the ` +
      'dev server used one); paced submits use a little less of their quota. Remove .data/ for a fresh start.',
  );
  return taskQueuePartitions(SERVER_DEFAULT_PARTITIONS);
}

async function startLocalTemporal(out: Out) {
  const {
    TEMPORAL_DEV_PORT: port,
    TEMPORAL_DEV_UI_PORT: uiPort,
    TEMPORAL_DEV_DATA_DIR: dataDir,
  } = loadDevServerPorts();
  const dbFile = path.join(dataDir, 'temporal.sqlite');
  try {
    const cliPath = await findOrBuildTemporalCli({ log: (m) => out(`[temporal-cli] ${m}`) });
    out(`Starting the Temporal dev server on 127.0.0.1:${port} (Web UI ${uiPort}, data ${dbFile})…`);
    const server = await startDevServer({
      cliPath,
      port,
      uiPort,
      dbFile,
      searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
      dynamicConfig: partitionsForData(dbFile, out),
    });
    return { address: server.address, uiUrl: server.uiUrl, stop: () => server.stop() };
  } catch (err) {
    if (!(err instanceof TemporalCliNotFoundError)) throw err;
    // No CLI and no Go: on a machine with internet, the SDK can download a dev server.
    out(`${err.message}\nFalling back to the Temporal SDK's own download of the dev server…`);
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port,
        ui: true,
        uiPort,
        dbFilename: dbFile,
        searchAttributes: Object.values(SearchAttributes),
      },
    });
    return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, stop: () => env.teardown() };
  }
}

/** The platform of `npm start`'s and `npm run cluster`'s worker: PLATFORM_BASE_URL's, else the emulator in-process. */
export async function startLocalPlatform(out: Out): Promise<Stop> {
  if (process.env.PLATFORM_BASE_URL && process.env.PLATFORM_API_KEY) {
    out(`Using the platform at ${process.env.PLATFORM_BASE_URL}.`);
    return async () => {};
  }
  const emulator = await startEmulator(loadEmulatorConfig());
  process.env.PLATFORM_BASE_URL = emulator.url;
  process.env.PLATFORM_API_KEY = loadEmulatorConfig().apiKeys[0] ?? DEV_API_KEY;
  out(`Platform emulator on ${emulator.url} (admin API under /_emulator).`);
  return () => emulator.close();
}

export async function upCommand(out: Out): Promise<void> {
  const stops: Stop[] = [];
  // A closed terminal leaves the output nowhere to go (EIO, EPIPE): that must not stop the shutdown below.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  try {
    // Before the fallback dev server below, which would instantiate the SDK's default Runtime.
    installRuntime(loadWorkerSettings());
    let uiUrl: string | undefined;
    if (!loadTemporalSettings().addressConfigured) {
      const local = await startLocalTemporal(out);
      stops.push(local.stop);
      process.env.TEMPORAL_ADDRESS = local.address;
      uiUrl = local.uiUrl;
    }
    const { address, taskQueue } = loadTemporalSettings();
    stops.push(await startLocalPlatform(out));
    // Its build becomes current: the stack runs the code checked out, whatever ran before it.
    await runWorker(
      { WORKER_MAKE_CURRENT: 'always', ...process.env },
      { onRunning: () => printBanner(out, { uiUrl, address, taskQueue }) },
    );
    out('Worker stopped; shutting down the rest…');
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => out(`while stopping: ${String(err)}`));
  }
}

/** What is running and what to try: `npm start`'s and `npm run cluster`'s banner, `more` lines under the addresses. */
export function printBanner(
  out: Out,
  s: { uiUrl?: string; address: string; taskQueue: string; heading?: string; more?: string[] },
): void {
  out('');
  out(s.heading ?? 'The local stack is up.');
  if (s.uiUrl) out(`  Temporal Web UI:  ${s.uiUrl}`);
  out(`  Temporal:         ${s.address}  (task queue ${s.taskQueue})`);
  for (const line of s.more ?? []) out(`  ${line}`);
  out('');
  out('Try, in another terminal:');
  for (const example of starterExamples()) out(`  npm run starter -- ${example}`);
  out('  npm run starter -- list');
  out('');
  out('Ctrl-C stops everything.');
}
