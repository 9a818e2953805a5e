// The worker's check of its namespace's search attributes, against the test run's dev server: each
// test makes a namespace of its own, which (unlike the dev server's default) has none of them.
import { randomUUID } from 'node:crypto';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import {
  addSearchAttributesCommand,
  ensureSearchAttributes,
  isLocalAddress,
  SearchAttributeMismatchError,
} from '../../src/namespace/search-attributes';
import { cleanEnv, runNode, startNode, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const NAMES = Object.keys(SEARCH_ATTRIBUTE_DEFINITIONS);
const noSleep = () => Promise.resolve();

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('temporalAddress') });
});
afterAll(async () => {
  await connection.close();
});

/** A new namespace, once the server's namespace cache has it (listing its attributes works). */
async function freshNamespace(): Promise<string> {
  const namespace = `sa-check-${randomUUID().slice(0, 8)}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await waitFor(
    () =>
      connection.operatorService.listSearchAttributes({ namespace }).then(
        () => true,
        (err: unknown) => {
          if (isGrpcServiceError(err) && (err.code as number) === 5) return false;
          throw err;
        },
      ),
    20_000,
    `namespace ${namespace} to be usable`,
  );
  return namespace;
}

/** The check as the worker runs it, on this test's connection, without waiting for caches. */
function checkOf(namespace: string, register: boolean) {
  return { connection, namespace, address: testEnv('temporalAddress'), register, log: () => {}, sleep: noSleep };
}

function workerEnv(namespace: string): NodeJS.ProcessEnv {
  return cleanEnv({
    TEMPORAL_ADDRESS: testEnv('temporalAddress'),
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: `sa-check-${randomUUID().slice(0, 8)}`,
    PLATFORM_BASE_URL: testEnv('emulatorUrl'),
    PLATFORM_API_KEY: DEV_API_KEY,
    WORKER_SHUTDOWN_GRACE_SECONDS: '1',
  });
}

test('only a server on this machine counts as a local stack', () => {
  for (const local of ['127.0.0.1:7233', 'localhost:7233', '[::1]:7233', '127.0.0.2:1']) {
    expect({ local, is: isLocalAddress(local) }).toEqual({ local, is: true });
  }
  for (const remote of ['temporal:7233', 'my-ns.a1b2c.tmprl.cloud:7233', '10.0.0.5:7233']) {
    expect({ remote, is: isLocalAddress(remote) }).toEqual({ remote, is: false });
  }
});

test('without registration, a namespace lacking attributes is refused, naming each and the command that adds them', async () => {
  const namespace = await freshNamespace();
  const address = testEnv('temporalAddress');
  const err = await ensureSearchAttributes(checkOf(namespace, false)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SearchAttributeMismatchError);
  const message = (err as Error).message;
  for (const name of NAMES) expect(message).toContain(`${name} (${SEARCH_ATTRIBUTE_DEFINITIONS[name]})`);
  expect(message).toContain(addSearchAttributesCommand(address, namespace, SEARCH_ATTRIBUTE_DEFINITIONS));
  // Nothing was added.
  const after = await connection.operatorService.listSearchAttributes({ namespace });
  expect(Object.keys(after.customAttributes ?? {})).toEqual([]);
});

test('with registration, the missing attributes are added with their types, and a second check adds nothing', async () => {
  const namespace = await freshNamespace();
  // One there already: only the others are added.
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { PlatformStatus: 2 } });
  const check = checkOf(namespace, true);
  const first = await ensureSearchAttributes(check);
  expect(first).toEqual({ checked: true, registered: NAMES.filter((n) => n !== 'PlatformStatus') });
  const listed = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  const typeNames: Record<number, string> = { 2: 'Keyword', 3: 'Int' };
  expect(Object.fromEntries(Object.entries(listed).map(([n, t]) => [n, typeNames[Number(t)]]))).toEqual(
    SEARCH_ATTRIBUTE_DEFINITIONS,
  );
  expect(await ensureSearchAttributes(check)).toEqual({ checked: true, registered: [] });
});

test('an attribute of another type is refused even when registration is allowed', async () => {
  const namespace = await freshNamespace();
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { PlatformStatus: 3 } });
  const err = await ensureSearchAttributes(checkOf(namespace, true)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SearchAttributeMismatchError);
  expect((err as Error).message).toContain('PlatformStatus (Int, want Keyword)');
});

test('the worker process with --no-register-search-attributes refuses to start, with one clear message', async () => {
  const namespace = await freshNamespace();
  const result = await runNode('worker.js', ['--no-register-search-attributes'], workerEnv(namespace));
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Worker stopped: Namespace ${namespace} at`);
  for (const name of NAMES) expect(result.stderr).toContain(name);
  expect(result.stderr).toContain('temporal operator search-attribute create');
  expect(result.stdout).not.toContain('Worker started');
  expect(`${result.stdout}${result.stderr}`).not.toContain(DEV_API_KEY);
});

test('the worker process on a local server registers what is missing by default, then starts', async () => {
  const namespace = await freshNamespace();
  const { child, output } = startNode('worker.js', workerEnv(namespace));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => output().includes('Worker started'), 60_000, 'the worker to start');
    expect(output()).toContain(`Registering the search attributes`);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(listed.customAttributes ?? {}).sort()).toEqual([...NAMES].sort());
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});
