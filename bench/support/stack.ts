// The stack a workflow benchmark runs on: the compiled emulator in a process of its own, loaded with
// the benchmark's fixtures, a real Temporal dev server, and the project's worker on a fresh task queue.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/api/names';
import { LocalArtifactStore } from '../../src/artifacts';
import { findOrBuildTemporalCli, getFreePort, startDevServer } from '../../src/devserver';
import { DEV_API_KEY } from '../../src/emulator/config';
import { DEFAULT_PATHS, PlatformClient } from '../../src/platform';
import { createPlatformWorker } from '../../src/worker';
import { startEmulatorProcess } from './emulator-process';

export interface BenchStack {
  emulatorUrl: string;
  /** Calls the emulator's admin API and returns its JSON answer; throws on a non-2xx status. */
  admin: <T>(method: string, p: string, body?: unknown) => Promise<T>;
  /** A platform client of the emulator, with the dev key. */
  platform: PlatformClient;
  client: Client;
  taskQueue: string;
  /** Not running: the benchmark runs it (`worker.runUntil`) around the part it measures. */
  worker: Worker;
}

/**
 * Starts the stack, loads `fixtures` into the emulator (before anything else, as a benchmark's
 * starting state), runs `fn`, and stops everything however `fn` ends.
 */
export async function withBenchStack<T>(
  name: string,
  fixtures: Record<string, unknown>,
  fn: (stack: BenchStack) => Promise<T>,
): Promise<T> {
  const log = (msg: string) => process.stderr.write(`[${name}] ${msg}\n`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const emulator = await startEmulatorProcess();
  const admin = async <R>(method: string, p: string, body?: unknown): Promise<R> => {
    const res = await fetch(`${emulator.url}/_emulator${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`admin ${method} ${p}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as R;
  };
  const artifactDir = mkdtempSync(path.join(tmpdir(), `bench-${name}-`));
  const stops: Array<() => Promise<void>> = [
    () => emulator.stop(),
    () => Promise.resolve(rmSync(artifactDir, { recursive: true, force: true })),
  ];
  try {
    await admin('POST', '/fixtures', fixtures);
    const platform = new PlatformClient({
      baseUrl: emulator.url,
      apiKey: DEV_API_KEY,
      timeoutMs: 30_000,
      paths: { ...DEFAULT_PATHS },
      billProductNameParam: 'productName',
    });
    const server = await startDevServer({
      cliPath: await findOrBuildTemporalCli({ log }),
      port: await getFreePort(),
      headless: true,
      searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
      log: () => {},
    });
    stops.unshift(() => server.stop());
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    stops.unshift(() => nativeConnection.close());
    const connection = await Connection.connect({ address: server.address });
    stops.unshift(() => connection.close());
    const client = new Client({ connection, namespace: server.namespace });
    const taskQueue = `bench-${name}-${randomUUID().slice(0, 8)}`;
    const worker = await createPlatformWorker({
      connection: nativeConnection,
      client,
      namespace: server.namespace,
      taskQueue,
      platform,
      artifacts: new LocalArtifactStore(artifactDir),
    });
    return await fn({ emulatorUrl: emulator.url, admin, platform, client, taskQueue, worker });
  } finally {
    for (const stop of stops) await stop();
  }
}
