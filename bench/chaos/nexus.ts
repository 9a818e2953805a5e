// Nexus-started runs in the fault suite's mix. A few generations of each wave are started as another team's
// application starts them: by caller workflows (src/nexus/caller-workflow.ts) in the `callers` namespace, through an
// endpoint of the suite's own to its task queue, each with its idempotency key. The run is ours, and meets the wave's
// fault like any other; the tally counts it with its type. The check here is the boundary's: each caller ends as its
// run did, with the run's own result.
//
// The callers' worker runs in this process, which no fault touches: a caller and our worker are two teams' processes,
// so the worker SIGKILL takes ours alone and the caller meets it only through the operation (a start its server sends
// again, a result delivered once the new worker finishes the run). The server restart strikes both, as it would.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { idempotentWorkflowId, WorkflowType } from '@platform-ops/client';
import type { NexusCallerInput } from '../../src/nexus/caller-workflow';
import { CALLERS_NAMESPACE, setUpNexus } from '../../src/nexus/setup';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import type { BenchStack } from '../support/stack';
import { failureTypeOf, type Started } from './outcomes';
import type { PaidCounter } from './tally';
import { chaosInput, sidePartPerWave } from './workload';
import { sleep } from '../../src/devserver/processes';

const NEXUS_TYPES = [WorkflowType.mediaGeneration, WorkflowType.budgetGatedJob] as const;

/** In every Nexus-started run's id, and so in its prompt: the paid counter's subjects tell them apart by it. */
const NEXUS_MARK = '-nexus-';
const nexusKey = (wave: string, i: number) => `chaos-${wave}${NEXUS_MARK}${i}`;
const callerId = (type: string, wave: string, i: number) => `chaos-${wave}${NEXUS_MARK}${type}-${i}`;

/** Our run of each Nexus call of the wave, by the key its caller gives. */
export function nexusRunIds(wave: string, perType: number, even = false): string[] {
  const indexes = Array.from({ length: sidePartPerWave(perType) }, (_, i) => i).filter((i) => !even || i % 2 === 0);
  return NEXUS_TYPES.flatMap((type) => indexes.map((i) => idempotentWorkflowId(type, nexusKey(wave, i))));
}

/** Longer than the suite: the caller's own timeout never ends an operation the suite waits for. */
const CALL_TIMEOUT_S = 3_600;
/** How long the callers get to hear of their runs' ends once every run has ended. */
const CALLERS_SETTLE_MS = 30_000;

interface NexusCall {
  callerId: string;
  runId: string;
  type: string;
  wave: string;
}

/** How a workflow ended: its status, and its result or what failed it. */
export interface End {
  status: string;
  result?: unknown;
  /** The failure's type as the tally reads it (outcomes.ts), and every type and kind along its causes. */
  failureType?: string;
  causes?: string[];
}

export interface NexusFigures {
  /** Caller workflows started, each with one run of ours. */
  runs: number;
  /** Callers that completed with their run's result. */
  results: number;
  /** Callers that failed as their run did (the run's failure type among theirs). */
  failedAsRun: number;
  /** Callers that did not end as their run did, with a few. */
  mismatched: { total: number; examples: string[] };
  /** Paid calls of Nexus-started runs carried out more than once, but for those a fault justifies. */
  duplicatePaid: number;
}

/**
 * Whether a caller ended as its run did: the same result, or failed with the run's failure among its causes (under the
 * Nexus operation's own).
 */
export function endedAsRun(caller: End, run: End): boolean {
  if (run.status === 'COMPLETED') return caller.status === 'COMPLETED' && isDeepStrictEqual(caller.result, run.result);
  if (run.status === 'RUNNING' || run.status === 'NOT_FOUND' || run.failureType === undefined) return false;
  return caller.status === 'FAILED' && (caller.causes ?? []).includes(run.failureType);
}

export function nexusFigures(ends: ReadonlyArray<{ callerId: string; caller: End; run: End }>): NexusFigures {
  const mismatched = ends.filter((e) => !endedAsRun(e.caller, e.run));
  const matched = ends.filter((e) => endedAsRun(e.caller, e.run));
  const why = (e: End) => `${e.status}${e.failureType ? ` ${e.failureType}` : ''}`;
  return {
    runs: ends.length,
    results: matched.filter((e) => e.run.status === 'COMPLETED').length,
    failedAsRun: matched.filter((e) => e.run.status !== 'COMPLETED').length,
    mismatched: {
      total: mismatched.length,
      examples: mismatched.slice(0, 5).map((e) => `${e.callerId}: caller ${why(e.caller)}, run ${why(e.run)}`),
    },
    duplicatePaid: 0,
  };
}

/** The paid counter of Nexus-started runs' subjects alone, for their own duplicate figure. */
export function nexusPaid(paid: PaidCounter): PaidCounter {
  const byRoute = Object.fromEntries(
    Object.entries(paid.byRoute).map(([route, subjects]) => [
      route,
      Object.fromEntries(Object.entries(subjects).filter(([subject]) => subject.includes(NEXUS_MARK))),
    ]),
  );
  return { byRoute, repeatedAt: paid.repeatedAt };
}

/** The failure type of each failure along the causes: the run's, under the caller's, is among them. */
function causesOf(err: unknown): string[] {
  const causes: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) causes.push(failureTypeOf(e));
  return causes;
}

/** How a workflow ended, read from the server; RUNNING (or NOT_FOUND) when it has not. */
async function endOf(client: Client, workflowId: string): Promise<End> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    const status = (await handle.describe()).status.name;
    if (status === 'RUNNING') return { status };
    return await handle.result().then(
      (result: unknown) => ({ status, result }),
      (err: unknown) => ({ status, failureType: failureTypeOf(err), causes: causesOf(err) }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { status: 'NOT_FOUND' };
    throw err;
  }
}

let runtimeInstalled = false;

/** The callers' worker says its warnings only: its bundling's and polling's lines are noise among the suite's. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

export interface NexusCallers {
  endpoint: string;
  /** Starts the wave's caller workflows; answers our runs as started (a refused caller start as refused). */
  call(wave: string, perType: number): Promise<Started[]>;
  /** Once every run has ended: how each caller ended beside its run. */
  gather(): Promise<Array<{ callerId: string; caller: End; run: End }>>;
  stop(): Promise<void>;
}

/** Creates the suite's endpoint and the callers' namespace, and starts the callers' worker in this process. */
export async function startNexusCallers(stack: BenchStack, log: (msg: string) => void): Promise<NexusCallers> {
  const suffix = randomUUID().slice(0, 8);
  // Endpoints are server-wide: a name of the suite's own.
  const endpoint = `chaos-${suffix}`;
  const taskQueue = `chaos-callers-${suffix}`;
  await setUpNexus({
    address: stack.server.address,
    namespace: stack.server.namespace,
    taskQueue: stack.taskQueue,
    endpoint,
    log,
  });
  quietRuntime();
  const { dataConverter } = stack.client.options;
  const caller = new Client({ connection: stack.client.connection, namespace: CALLERS_NAMESPACE, dataConverter });
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const worker = await Worker.create({
    connection,
    namespace: CALLERS_NAMESPACE,
    taskQueue,
    workflowsPath: require.resolve('../../src/nexus/caller-workflow'),
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
    dataConverter,
  });
  const running = worker.run();
  const calls: NexusCall[] = [];

  const callOne = async (type: (typeof NEXUS_TYPES)[number], wave: string, i: number): Promise<Started> => {
    const key = nexusKey(wave, i);
    const call = { callerId: callerId(type, wave, i), runId: idempotentWorkflowId(type, key), type, wave };
    const input: NexusCallerInput = {
      workflowType: type,
      start: { input: chaosInput(type, wave, i, call.runId), idempotencyKey: key },
      endpoint,
      timeoutSeconds: CALL_TIMEOUT_S,
    } as NexusCallerInput;
    const sentAt = Date.now();
    try {
      await caller.workflow.start('nexusCaller', { taskQueue, workflowId: call.callerId, args: [input] });
      calls.push(call);
      return { workflowId: call.runId, type, wave, sentAt };
    } catch (err) {
      const startError = `caller: ${err instanceof Error ? err.message : String(err)}`;
      return { workflowId: call.runId, type, wave, sentAt, startError };
    }
  };

  return {
    endpoint,
    call: (wave, perType) =>
      Promise.all(
        Array.from({ length: sidePartPerWave(perType) }, (_, i) =>
          NEXUS_TYPES.map((type) => callOne(type, wave, i)),
        ).flat(),
      ),
    gather: async () => {
      const deadline = Date.now() + CALLERS_SETTLE_MS;
      const query = `TaskQueue="${taskQueue}" AND ExecutionStatus="Running"`;
      let open = (await caller.workflow.count(query)).count;
      while (open > 0 && Date.now() < deadline) {
        await sleep(1_000);
        open = (await caller.workflow.count(query)).count;
      }
      if (open > 0) log(`${open} Nexus callers still running ${CALLERS_SETTLE_MS / 1000} s after every run ended`);
      const ends = [];
      for (const c of calls) {
        ends.push({
          callerId: c.callerId,
          caller: await endOf(caller, c.callerId),
          run: await endOf(stack.client, c.runId),
        });
      }
      return ends;
    },
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch((err: unknown) => log(`the callers' worker: ${String(err)}`));
      await connection.close();
    },
  };
}
