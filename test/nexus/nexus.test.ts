// Every operation as a Nexus service: a caller workflow in another namespace (src/nexus/caller-workflow.ts) runs our
// workflows through an endpoint to the test worker's task queue, on the real dev server and an emulator of this file's
// own. Payloads are encrypted on both sides with the run's key.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  FailureType,
  idempotentWorkflowId,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import { setUpNexus } from '../../src/nexus/setup';
import { requestKey } from '../../src/nexus/handlers';
import type { NexusCallerInput } from '../../src/nexus/caller-workflow';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { waitFor } from '../helpers/processes';
import {
  emulatorPlatform,
  encryptingConverter,
  uniqueId,
  withWorker,
  type TemporalTestContext,
} from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const CALLERS = 'callers';
const dataConverter = encryptingConverter();
const video = (prompt: string, durationMs = 3_000) => ({
  operation: 'text-to-video' as const,
  request: { prompt: `${prompt} [emulator:duration=${durationMs}]`, duration: 5 },
  polling: { minIntervalMs: 200, maxIntervalMs: 500 },
  regeneration: { maxRegenerations: 0 },
});

let emulator: TestEmulator;
let callerConnection: NativeConnection;
let caller: Client;
let callerWorker: Worker | undefined;
let callerWorkerRun: Promise<void> | undefined;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
  callerConnection = await NativeConnection.connect({ address: testEnv('temporalAddress') });
  caller = new Client({
    connection: await Connection.connect({ address: testEnv('temporalAddress') }),
    namespace: CALLERS,
    dataConverter,
  });
}, 60_000);
afterAll(async () => {
  await stopCallerWorker();
  await callerConnection.close();
  await caller.connection.close();
  await emulator.close();
});

/** A caller's worker on a queue of its own, as another team runs it; stopped as a crash would leave its runs. */
async function startCallerWorker(taskQueue: string): Promise<void> {
  callerWorker = await Worker.create({
    connection: callerConnection,
    namespace: CALLERS,
    taskQueue,
    workflowsPath: path.resolve(__dirname, '../../lib/src/nexus/caller-workflow.js'),
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
    dataConverter,
  });
  callerWorkerRun = callerWorker.run();
}
async function stopCallerWorker(): Promise<void> {
  if (callerWorker?.getState() === 'RUNNING') callerWorker.shutdown();
  await callerWorkerRun;
  callerWorker = undefined;
}

/** Our worker, an endpoint of its own to its queue, and a caller worker; `fn` gets the caller's queue too. */
const withNexus = <T>(
  prefix: string,
  fn: (ctx: TemporalTestContext & { endpoint: string; callerQueue: string }) => Promise<T>,
) =>
  withWorker(
    prefix,
    async (ctx) => {
      const endpoint = `${prefix}-${randomUUID().slice(0, 8)}`;
      await setUpNexus({
        address: ctx.address,
        namespace: ctx.namespace,
        taskQueue: ctx.taskQueue,
        endpoint,
        log: () => undefined,
      });
      const callerQueue = `${prefix}-callers-${randomUUID().slice(0, 8)}`;
      await startCallerWorker(callerQueue);
      try {
        return await fn({ ...ctx, endpoint, callerQueue });
      } finally {
        await stopCallerWorker();
        await ctx.client.connection.operatorService
          .listNexusEndpoints({ name: endpoint })
          .then(({ endpoints }) =>
            Promise.all(
              (endpoints ?? []).map((e) =>
                ctx.client.connection.operatorService.deleteNexusEndpoint({ id: e.id, version: e.version }),
              ),
            ),
          );
      }
    },
    { platform: emulatorPlatform(emulator.url), dataConverter },
  );

const call = (
  ctx: { endpoint: string; callerQueue: string },
  input: Omit<NexusCallerInput, 'endpoint'>,
): Promise<WorkflowHandle> =>
  caller.workflow.start('nexusCaller', {
    taskQueue: ctx.callerQueue,
    workflowId: uniqueId('nexus-caller'),
    args: [{ ...input, endpoint: ctx.endpoint, timeoutSeconds: 300 }],
  });

const submissions = async () =>
  (await emulator.admin<{ submissions: { total: number } }>('GET', '/counters')).submissions.total;

/** The root of a caller's failure: the handler's error under the Nexus operation's. */
async function callerFailure(handle: WorkflowHandle): Promise<Error> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  let cause = err as Error;
  while (cause.cause instanceof Error) cause = cause.cause;
  return cause;
}

describe('the platformOps Nexus service', () => {
  it(
    'runs a mediaGeneration and a budgetGatedJob from another namespace to their results, encrypted across',
    () =>
      withNexus('nexus-run', async (ctx) => {
        const memberId = await emulator.freshMember(1_000_000);
        const key = uniqueId('order');
        const media = await call(ctx, {
          workflowType: 'mediaGeneration',
          start: { input: { ...video('a lighthouse'), memberId }, idempotencyKey: key },
        });
        const budget = await call(ctx, {
          workflowType: 'budgetGatedJob',
          start: { input: { memberId, job: { workflowType: 'mediaGeneration', input: video('a harbour') } } },
        });
        const mediaResult = (await media.result()) as { outputs: unknown[] };
        expect(mediaResult.outputs.length).toBeGreaterThan(0);
        expect(await budget.result()).toMatchObject({ outcome: 'Completed', released: true });

        // Our run: named by the caller's key, placed in the quotas as any start (its member's fairness key).
        const run = ctx.client.workflow.getHandle(idempotentWorkflowId('mediaGeneration', key));
        const described = await run.describe();
        expect(described.status.name).toBe('COMPLETED');
        expect(described.typedSearchAttributes.get(SearchAttributes.fairnessKey)).toBe(memberId);
        expect(described.typedSearchAttributes.get(SearchAttributes.operation)).toBe('mediaGeneration');
        // The prompt crossed the endpoint inside an encrypted payload, on the caller's side and ours.
        const scheduled = (await media.fetchHistory()).events?.find((e) => e.nexusOperationScheduledEventAttributes);
        const payload = scheduled?.nexusOperationScheduledEventAttributes?.input;
        expect(Buffer.from(payload?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
        expect(Buffer.from(payload?.data ?? []).toString()).not.toContain('lighthouse');
      }),
    180_000,
  );

  it(
    'starts one run and pays one submit for a start repeated by the key and a caller worker killed mid-start',
    () =>
      withNexus('nexus-once', async (ctx) => {
        const before = await submissions();
        const key = uniqueId('order');
        const start = { input: video('one heron'), idempotencyKey: key };
        const first = await call(ctx, { workflowType: 'mediaGeneration', start });
        const again = await call(ctx, { workflowType: 'mediaGeneration', start });
        expect(await again.result()).toEqual(await first.result());
        // Once the key's run has closed, the same start answers with its result at once.
        const late = await call(ctx, { workflowType: 'mediaGeneration', start });
        expect(await late.result()).toEqual(await first.result());
        expect(await submissions()).toBe(before + 1);

        // No key: the Nexus request id names the run. The caller's worker dies once the start is scheduled.
        const keyless = await call(ctx, { workflowType: 'mediaGeneration', start: { input: video('two herons') } });
        let requestId = '';
        await waitFor(
          async () => {
            const events = (await keyless.fetchHistory()).events ?? [];
            const scheduled = events.find((e) => e.nexusOperationScheduledEventAttributes);
            requestId = scheduled?.nexusOperationScheduledEventAttributes?.requestId ?? '';
            return requestId !== '';
          },
          15_000,
          'the operation to be scheduled',
        );
        await stopCallerWorker();
        await startCallerWorker(ctx.callerQueue);
        const result = (await keyless.result()) as { outputs: unknown[] };
        expect(result.outputs.length).toBeGreaterThan(0);
        const ours = ctx.client.workflow.getHandle(idempotentWorkflowId('mediaGeneration', requestKey(requestId)));
        expect((await ours.describe()).status.name).toBe('COMPLETED');
        expect(await submissions()).toBe(before + 2);
      }),
    180_000,
  );

  it(
    "ends our run cancelled within 10 s of the caller's cancel, and leaks no reservation",
    () =>
      withNexus('nexus-cancel', async (ctx) => {
        const memberId = await emulator.freshMember(1_000_000);
        const key = uniqueId('order');
        const handle = await call(ctx, {
          workflowType: 'budgetGatedJob',
          start: {
            input: {
              memberId,
              job: {
                workflowType: 'mediaGeneration',
                input: video('a long take', 600_000),
              },
            },
            idempotencyKey: key,
          },
        });
        const ours = ctx.client.workflow.getHandle(idempotentWorkflowId('budgetGatedJob', key));
        await waitFor(
          async () => {
            const d = await ours.describe().catch(() => undefined);
            return d?.typedSearchAttributes.get(SearchAttributes.status) === 'RUNNING_JOB';
          },
          30_000,
          'our job to run',
        );
        const ledger = ctx.client.workflow.getHandle(budgetLedgerWorkflowId(memberId));
        expect((await ledger.query(budgetLedgerStateQuery)).outstanding).toBeGreaterThan(0);
        const cancelledAt = Date.now();
        await handle.cancel();
        await waitFor(
          async () => (await ours.describe()).status.name === 'CANCELLED',
          10_000,
          'our run to be cancelled',
        );
        expect(Date.now() - cancelledAt).toBeLessThan(10_000);
        await expect(handle.result()).rejects.toThrow();
        expect(await ledger.query(budgetLedgerStateQuery)).toMatchObject({ outstanding: 0 });
      }),
    180_000,
  );

  it(
    'fails a bad input, or a key reused for another input, at once and for good, naming the field',
    () =>
      withNexus('nexus-refuse', async (ctx) => {
        const before = await submissions();
        const began = Date.now();
        const bad = await call(ctx, {
          workflowType: 'mediaGeneration',
          start: {
            input: { operation: 'text-to-video', request: { duration: 5 } } as never,
            idempotencyKey: uniqueId('bad'),
          },
        });
        const refused = await callerFailure(bad);
        expect(refused.message).toMatch(/request\.prompt/);
        expect((refused as { type?: string }).type).toBe(FailureType.InvalidInput);
        expect(Date.now() - began).toBeLessThan(10_000);

        const key = uniqueId('order');
        const first = await call(ctx, {
          workflowType: 'mediaGeneration',
          start: { input: video('a red kite'), idempotencyKey: key },
        });
        // Once the key's run exists, whichever start reaches the handler first.
        const firstRun = ctx.client.workflow.getHandle(idempotentWorkflowId('mediaGeneration', key));
        await waitFor(
          () =>
            firstRun.describe().then(
              () => true,
              () => false,
            ),
          15_000,
          'the first run',
        );
        const other = await call(ctx, {
          workflowType: 'mediaGeneration',
          start: { input: video('a blue kite'), idempotencyKey: key },
        });
        expect((await callerFailure(other)).message).toMatch(/Idempotency key already used for a different request/);
        await first.result();
        expect(await submissions()).toBe(before + 1);
        expect(WorkflowType.mediaGeneration).toBe('mediaGeneration');
      }),
    180_000,
  );
});
