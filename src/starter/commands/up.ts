// `npm start`: the whole local stack from one command (docs/starter.md#up-the-local-stack).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Runtime, type Logger } from '@temporalio/worker';
import { ensureLocalKeyFile, loadKeyring, SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { loadDevServerPorts, loadTemporalSettings, loadWorkerSettings, localKeyFile } from '../../config/settings';
import { loadCodecServerSettings, startCodecServer } from '../../codec/server';
import { findOrBuildClusterBinaries } from '../../devserver/temporal-programs';
import {
  isDevServerOf,
  SERVER_DEFAULT_PARTITIONS,
  startDevServer,
  taskQueuePartitions,
} from '../../devserver/dev-server';
import { listProcesses, stopPid } from '../../devserver/processes';
import { linesOf, logFormatOf, settleLogs, type LogFormat } from '../../logging';
import { installRuntime } from '../../process-entry';
import { setUpNexus } from '../../nexus/setup';
import { runWorker } from '../../worker';
import { DEV_API_KEY, loadEmulatorConfig, startEmulator } from '@platform-ops/emulator';
import type { Out } from '../../cli/command';
import { starterExamples } from '../workflow-inputs';

type Stop = () => Promise<void>;

/** One task queue partition for a new database (noted beside it): fewer strand tasks. Older data keeps the default. */
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

const UP_PROCESS = /starter\.js up\b/;
const STOP_LEFT_BEHIND_MS = 15_000;

/** A dev server on `dbFile` left behind by an earlier `up` is stopped; one a running `up` still uses is reported. */
async function clearLeftBehind(dbFile: string, out: Out): Promise<void> {
  const processes = await listProcesses();
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const onOurData = processes.filter((p) => p.pid !== process.pid && isDevServerOf(dbFile, p.args));
  for (const server of onOurData) {
    const parent = byPid.get(server.ppid);
    if (parent && UP_PROCESS.test(parent.args)) {
      throw new Error(
        `Another \`npm start\` of this checkout (pid ${parent.pid}) is running, with its dev server on ${dbFile}. ` +
          'Use that one, or stop it first (Ctrl-C in its terminal).',
      );
    }
    out(`Stopping the Temporal dev server an earlier start left running (pid ${server.pid}, data ${dbFile})…`);
    await stopPid(server.pid, STOP_LEFT_BEHIND_MS);
  }
}

async function startLocalTemporal(out: Out, log: Out) {
  const { TEMPORAL_DEV_PORT: port, TEMPORAL_DEV_UI_PORT: uiPort, TEMPORAL_DEV_DATA_DIR } = loadDevServerPorts();
  const dbFile = path.resolve(TEMPORAL_DEV_DATA_DIR, 'temporal.sqlite');
  const binaries = await findOrBuildClusterBinaries(log);
  await clearLeftBehind(dbFile, out);
  const codec = await startLocalCodecServer(uiPort);
  out(`Starting the Temporal dev server on 127.0.0.1:${port} (Web UI ${uiPort}, data ${dbFile})…`);
  const server = await startDevServer({
    binaries,
    port,
    uiPort,
    dbFile,
    searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
    dynamicConfig: partitionsForData(dbFile, out),
    busyPortMessage: (busy) =>
      `Port ${busy} is in use, and not by a dev server of this checkout (none runs on ${dbFile}), so it is left alone. ` +
      'Stop whatever holds it, set TEMPORAL_DEV_PORT to use another port, or TEMPORAL_ADDRESS to use a Temporal ' +
      'server that is already running.',
    codecEndpoint: codec?.url,
  }).catch(async (err: unknown) => {
    await codec?.close();
    throw err;
  });
  const stop = async () => {
    await server.stop();
    await codec?.close();
  };
  return { address: server.address, uiUrl: server.uiUrl, stop };
}

/** The local Web UI's codec server, on a free port unless CODEC_PORT says; none when encryption is off. */
export async function startLocalCodecServer(uiPort: number) {
  const env = process.env;
  const keyring = loadKeyring(env, { localKeyFile: localKeyFile(env) });
  if (!keyring) return undefined;
  const settings = loadCodecServerSettings({
    CODEC_PORT: '0',
    CODEC_CORS_ORIGINS: `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`,
    ...env,
  });
  return startCodecServer({ ...settings, keyring });
}

/** PLATFORM_BASE_URL's platform, else the emulator in-process. */
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

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Holds the stop signals while `up` runs. The Runtime's handler (src/process-entry.ts) stops the worker at the first
 * and lets go of them: a second (a closed terminal sends SIGHUP more than once; people press Ctrl-C twice) would then
 * kill the process at once, leaving its dev server, in a session of its own, running.
 */
function holdStopSignals(say: Out): { received: () => NodeJS.Signals | undefined; release: () => void } {
  let received: NodeJS.Signals | undefined;
  let toldAgain = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!received) {
      received = signal;
      say(`${signal}: stopping the stack…`);
    } else if (!toldAgain) {
      toldAgain = true;
      say(`${signal}: already stopping the stack…`);
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    received: () => received,
    release: () => STOP_SIGNALS.forEach((signal) => process.removeListener(signal, onSignal)),
  };
}

/** Every line it prints is a log line, readable or JSON (src/logging.ts). */
export async function upCommand(): Promise<void> {
  const stops: Stop[] = [];
  // A closed terminal leaves the output nowhere to go (EIO, EPIPE): that must not stop the shutdown below, so the
  // starter's handler (src/starter.ts), which ends the process there, makes way.
  for (const stream of [process.stdout, process.stderr]) {
    stream.removeAllListeners('error');
    stream.on('error', () => undefined);
  }
  const settings = loadWorkerSettings();
  installRuntime(settings);
  const { logger } = Runtime.instance();
  const say = linesOf(logger, 'up');
  const signals = holdStopSignals(say);
  const format = logFormatOf(settings.LOG_FORMAT);
  try {
    let uiUrl: string | undefined;
    makeLocalKey(say);
    const startsServer = !loadTemporalSettings().addressConfigured;
    if (startsServer) {
      const local = await startLocalTemporal(say, linesOf(logger, 'temporal-build'));
      stops.push(local.stop);
      process.env.TEMPORAL_ADDRESS = local.address;
      uiUrl = local.uiUrl;
    }
    const { address, namespace, taskQueue } = loadTemporalSettings();
    // Only on the server it runs: another's endpoints and namespaces are its owner's to set.
    if (startsServer) await setUpNexus({ address, namespace, taskQueue, log: say });
    // A signal during the startup: what has started is stopped, and the rest is not started.
    if (signals.received()) return;
    stops.push(await startLocalPlatform(say));
    if (signals.received()) return;
    // Its build becomes current: the stack runs the code checked out, whatever ran before it.
    await runWorker(
      { WORKER_MAKE_CURRENT: 'always', ...process.env },
      {
        onRunning: () =>
          announce(logger, format, { component: 'up', heading: 'The local stack is up.', uiUrl, address, taskQueue }),
      },
    );
    say('Worker stopped; shutting down the rest…');
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => say(`while stopping: ${String(err)}`));
    await settleLogs();
    signals.release();
  }
}

/** With no key setting, the local stack makes its own key the first time (payloads are encrypted by default). */
export function makeLocalKey(say: Out): void {
  const env = process.env;
  if (env.PAYLOAD_ENCRYPTION?.trim() === 'off' || env.PAYLOAD_KEYS || env.PAYLOAD_KEY_FILE) return;
  const file = localKeyFile(env);
  if (ensureLocalKeyFile(file)) {
    say(
      `Made a payload encryption key for the local stack in ${file}: keep it, the runs it encrypts cannot be read ` +
        'without it (docs/encryption.md).',
    );
  }
}

/** The banner: in a terminal one log entry of several lines; for a machine, the heading with the addresses as fields. */
export function announce(
  logger: Logger,
  format: LogFormat,
  s: { component: string; heading: string; uiUrl?: string; address: string; taskQueue: string; more?: string[] },
): void {
  const fields = { component: s.component, webUi: s.uiUrl, address: s.address, taskQueue: s.taskQueue };
  if (format === 'json') {
    logger.info(s.heading, fields);
    return;
  }
  const lines = [
    s.heading,
    ...(s.uiUrl ? [`  Temporal Web UI:  ${s.uiUrl}`] : []),
    `  Temporal:         ${s.address}  (task queue ${s.taskQueue})`,
    ...(s.more ?? []).map((line) => `  ${line}`),
    '',
    'Try, in another terminal:',
    ...starterExamples().map((example) => `  npm run starter -- ${example}`),
    '  npm run starter -- list',
    '',
    'Ctrl-C stops everything.',
  ];
  logger.info(`${lines.join('\n')}\n`, { component: s.component });
}
