// Runs a test's workflows on a real worker against the shared dev server, on a task queue of its own.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { LocalArtifactStore, type ArtifactStore } from '../../src/artifacts';
import { PlatformClient } from '../../src/platform-client/client';
import type { PlatformConfig } from '../../src/platform-client/config';
import {
  allowPlaintext,
  dataConverterOf,
  DEFAULT_PATHS,
  encryptsPayloads,
  loadDataConverter,
  loadKeyring,
} from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { createPlatformWorker, withServerMessages } from '../../src/worker';
import type { WorkerGroup } from '../../src/ratelimit/worker-group';
import type { CallbackUrls } from '../../src/webhooks/token';
import { testEnv } from '../setup/shared';

const execFileAsync = promisify(execFile);

let runtimeInstalled = false;
/** Keeps the SDK's own logs to errors: tests fail workflows on purpose, and their warnings are noise. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed in this process by an earlier test file.
  }
}

let artifacts: ArtifactStore | undefined;
/** One temporary artifact folder per test file (jest runs each file in its own module registry). */
function testArtifacts(): ArtifactStore {
  artifacts ??= new LocalArtifactStore(mkdtempSync(path.join(tmpdir(), 'platform-ops-artifacts-')));
  return artifacts;
}

export interface TemporalTestContext {
  client: Client;
  taskQueue: string;
  namespace: string;
  address: string;
  worker: WorkerGroup;
}

export function emulatorPlatform(
  baseUrl = testEnv('emulatorUrl'),
  overrides: Partial<PlatformConfig> = {},
): PlatformClient {
  return new PlatformClient({
    baseUrl,
    apiKey: DEV_API_KEY,
    timeoutMs: 5_000,
    paths: { ...DEFAULT_PATHS },
    billProductNameParam: 'productName',
    ...overrides,
  });
}

/** Starts a worker for `prefix`'s own task queue, runs `fn`, then shuts the worker down. */
export async function withWorker<T>(
  prefix: string,
  fn: (ctx: TemporalTestContext) => Promise<T>,
  opts: {
    platform?: PlatformClient;
    artifacts?: ArtifactStore;
    /** Settings over the defaults (WORKER_*, RATE_LIMIT_*), as the environment would give them. */
    env?: NodeJS.ProcessEnv;
    /** The task queue to poll (several workers on one queue); default a fresh one of `prefix`. */
    taskQueue?: string;
    callbacks?: CallbackUrls;
    /** Another server than the shared one (a test's own), in its default namespace. */
    address?: string;
    /** What the client and worker encode with; by default as the environment says (PAYLOAD_*, src/codec). */
    dataConverter?: DataConverter;
  } = {},
): Promise<T> {
  quietRuntime();
  const address = opts.address ?? testEnv('temporalAddress');
  const namespace = opts.address ? 'default' : testEnv('temporalNamespace');
  const taskQueue = opts.taskQueue ?? `${prefix}-${randomUUID().slice(0, 8)}`;
  // Native connections for the worker and its client, as src/worker.ts runs them.
  const workerConnection = await NativeConnection.connect({ address });
  let clientConnection: NativeConnection | undefined;
  try {
    clientConnection = await NativeConnection.connect({ address });
    const client = plaintextIfOff(
      new Client({
        connection: withServerMessages(clientConnection),
        namespace,
        dataConverter: opts.dataConverter ?? loadDataConverter(),
      }),
    );
    const worker = await createPlatformWorker({
      connection: workerConnection,
      client,
      namespace,
      taskQueue,
      platform: opts.platform ?? emulatorPlatform(),
      // The defaults, whatever this shell's WORKER_*, RATE_LIMIT_* or FETCH_* say. The emulator's minute
      // is 6 real seconds (clock speed 10, test/setup/global-setup.ts).
      env: { WORKER_SHUTDOWN_GRACE_SECONDS: '1', RATE_LIMIT_WINDOW_SECONDS: '6', ...opts.env },
      artifacts: opts.artifacts ?? testArtifacts(),
      workflowBundle: { codePath: testEnv('workflowBundle') },
      callbacks: opts.callbacks,
      // Two workers of one test (one queue) tell apart in histories.
      identity: `${prefix}-worker-${randomUUID().slice(0, 8)}`,
    });
    return await worker.runUntil(fn({ client, taskQueue, namespace, address, worker }));
  } finally {
    await clientConnection?.close();
    await workerConnection.close();
  }
}

/** A client of the shared dev server, for tests whose worker runs elsewhere (a child process). */
export async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: testEnv('temporalAddress') });
  try {
    return await fn(
      plaintextIfOff(
        new Client({ connection, namespace: testEnv('temporalNamespace'), dataConverter: loadDataConverter() }),
      ),
    );
  } finally {
    await connection.close();
  }
}

/**
 * With RECORD_HISTORIES=1, saves a finished workflow's history for the replay tests, unless one of
 * that name exists already, exported by the
 * temporal CLI in the proto JSON form that `historyFromJSON` reads back. `runId` names one run of a
 * workflow that never completes on its own (the budget ledger's run that continued as new).
 */
export async function recordHistory(
  handle: WorkflowHandle,
  name: string,
  opts: { runId?: string } = {},
): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  if (!opts.runId) await handle.result().catch(() => undefined);
  const { stdout } = await execFileAsync(testEnv('temporalCli'), [
    'workflow',
    'show',
    '--address',
    testEnv('temporalAddress'),
    '--namespace',
    testEnv('temporalNamespace'),
    '--workflow-id',
    handle.workflowId,
    ...(opts.runId ? ['--run-id', opts.runId] : []),
    '--output',
    'json',
  ]);
  const dir = path.join(__dirname, '..', 'replay', 'histories');
  mkdirSync(dir, { recursive: true });
  // Recorded histories stand for runs already in the field: a change must replay them as they are.
  // A new behaviour gets a recording of its own name; an existing one is never overwritten.
  if (existsSync(path.join(dir, `${name}.json`))) return;
  // The workflow id goes along: replay must run under it (a child's id is derived from its parent's).
  const history = JSON.parse(stdout) as Record<string, unknown>;
  writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ workflowId: handle.workflowId, ...history }, null, 2));
}

/** The event type names of a workflow's history, in order (`ActivityTaskScheduled`, …). */
export async function eventTypes(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((e) =>
    String(temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, ''),
  );
}

/** The attempt numbers of every started activity, in order. */
export async function activityAttempts(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
}

/** The Temporal CLI against the tests' dev server, as an operator runs it (docs/operations.md). */
export const temporalCli = (args: string[]) =>
  execFileAsync(testEnv('temporalCli'), [
    ...args,
    '--address',
    testEnv('temporalAddress'),
    '--namespace',
    testEnv('temporalNamespace'),
  ]);

export const uniqueId = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * The run's key (test/setup/global-setup.ts), encrypting whatever PAYLOAD_ENCRYPTION says: for the tests of the
 * encryption itself, which hold also in a run that records histories in the clear.
 */
export const encryptingConverter = () => dataConverterOf(loadKeyring({ PAYLOAD_KEYS: process.env.PAYLOAD_KEYS }));

/** A run that records histories writes them in the clear (PAYLOAD_ENCRYPTION=off, test/setup): its clients say so. */
const plaintextIfOff = (client: Client): Client =>
  encryptsPayloads(client) ? client : allowPlaintext(client, client.options.namespace);
