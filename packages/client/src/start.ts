import { createHash, randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  DEFAULT_TASK_QUEUE,
  IDEMPOTENCY_MEMO,
  idToken,
  priorityClassOf,
  SearchAttributes,
  StartPriority,
  temporalPriority,
  type IdempotencyMemo,
  type PriorityClass,
  type WorkflowContract,
} from './contract';
import {
  DeployEndpointRequest,
  deployEndpointUpdate,
  serverlessEndpointWorkflowId,
} from './contracts/serverlessEndpoint';
import { assertEncryptedWrites, readableHandle } from './codec';
import { invalidInput, parseInput } from './failures';
import { parseOrThrow } from './validation';
import {
  WORKFLOWS,
  WorkflowType,
  workflowSummary,
  type InputOf,
  type ResultOf,
  type WorkflowTypeName,
} from './operations';

export type Handle<T extends WorkflowTypeName> = WorkflowHandle<(input: InputOf<T>) => Promise<ResultOf<T>>>;

export interface StartOptions {
  taskQueue?: string;
  /**
   * The caller's name for this request (an order id, say). Starting again with the same key returns
   * the execution it started, running or closed, instead of a second job; with a different input it
   * fails with IdempotencyKeyReusedError. Becomes the workflow id `<workflowType>:<key>`.
   */
  idempotencyKey?: string;
  workflowId?: string;
  /**
   * Whether a key whose run failed (timed out, was cancelled or terminated) may start a new run. Off by default:
   * a failed paid job may still have been charged, so repeating it should be a decision, not a retry's side effect.
   */
  retryFailedRuns?: boolean;
  summary?: string;
  priority?: PriorityClass;
  fairnessKey?: string;
  fairnessWeight?: number;
}

export function startPriority(
  type: WorkflowTypeName,
  opts: Pick<StartOptions, 'priority' | 'fairnessKey' | 'fairnessWeight'>,
  memberId: string | undefined,
  defaultClass: PriorityClass = 'interactive',
) {
  const given = { priority: opts.priority, fairnessKey: opts.fairnessKey, fairnessWeight: opts.fairnessWeight };
  const checked = parseOrThrow(StartPriority, given, (issues) => invalidInput(`${type} start`, issues));
  const priority = temporalPriority(checked, memberId, defaultClass);
  return {
    priority,
    typedSearchAttributes: [
      { key: SearchAttributes.priority, value: priorityClassOf(priority.priorityKey) },
      { key: SearchAttributes.fairnessKey, value: priority.fairnessKey },
    ],
  };
}

export interface Started<T extends WorkflowTypeName> {
  handle: Handle<T>;
  workflowId: string;
  started: boolean;
}

export const IdempotencyKey = idToken(200);

export function idempotentWorkflowId(type: WorkflowTypeName, key: string): string {
  const bad = (issues: { rule: string }[]) =>
    invalidInput(
      `${type} start`,
      issues.map((i) => ({ field: 'idempotencyKey', rule: i.rule })),
    );
  return `${type}:${parseOrThrow(IdempotencyKey, key, bad)}`;
}

export function inputFingerprint(input: unknown): string {
  const sorted = (_key: string, v: unknown) =>
    v === null || typeof v !== 'object' || Array.isArray(v)
      ? v
      : Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash('sha256').update(JSON.stringify(input, sorted)).digest('hex');
}

export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(
    readonly workflowId: string,
    readonly runId: string | undefined,
  ) {
    super(
      `Idempotency key already used for a different request: workflow ${workflowId} ` +
        `(run ${runId ?? 'unknown'}) was started with another input. Use a new key for a new request.`,
    );
  }
}

/**
 * What a start sends, whoever sends it: startWorkflow here, or the worker's Nexus handler (src/nexus/handlers.ts),
 * so that both place, name and guard a run alike.
 */
export function startRequest<T extends WorkflowTypeName>(type: T, input: InputOf<T>, opts: StartOptions = {}) {
  const parsed: unknown = parseInput(WORKFLOWS[type].input, input, type);
  const placed = startPriority(type, opts, (parsed as { memberId?: string }).memberId);
  const key = opts.idempotencyKey;
  const workflowId =
    key !== undefined ? idempotentWorkflowId(type, key) : (opts.workflowId ?? `${type}-${randomUUID()}`);
  // The nonce tells the call that started the key's run from a repeat.
  const fingerprint = key !== undefined ? inputFingerprint(parsed) : '';
  const nonce = randomUUID();
  const options = {
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId,
    // The workflow parses the input again itself: it is what any client, in any language, sends.
    args: [input] as [InputOf<T>],
    priority: placed.priority,
    typedSearchAttributes: [
      { key: SearchAttributes.operation, value: type as string },
      ...placed.typedSearchAttributes,
      ...((WORKFLOWS[type] as WorkflowContract).startAttributes?.(parsed) ?? []),
    ],
    staticSummary: opts.summary ?? workflowSummary(type, parsed),
    ...(key !== undefined
      ? {
          memo: { [IDEMPOTENCY_MEMO]: { key, fingerprint, nonce } },
          // A run still going: hand back that run. A closed one: the reuse policy below decides.
          workflowIdConflictPolicy: 'USE_EXISTING' as const,
          workflowIdReusePolicy: opts.retryFailedRuns
            ? ('ALLOW_DUPLICATE_FAILED_ONLY' as const)
            : ('REJECT_DUPLICATE' as const),
        }
      : {}),
  };
  /** Whether this request started the key's run; throws when the run was started with another input. */
  const startedHere = async (handle: Pick<WorkflowHandle, 'describe'>): Promise<boolean> => {
    if (key === undefined) return true;
    const description = await handle.describe();
    const memo = description.memo?.[IDEMPOTENCY_MEMO] as IdempotencyMemo | undefined;
    if (memo?.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(workflowId, description.runId);
    return memo.nonce === nonce;
  };
  return { workflowId, key, options, startedHere };
}

export async function startWorkflow<T extends WorkflowTypeName>(
  client: Client,
  type: T,
  input: InputOf<T>,
  opts: StartOptions = {},
): Promise<Started<T>> {
  const { workflowId, key, options, startedHere } = startRequest(type, input, opts);
  assertEncryptedWrites(client, `Starting ${type}`);
  try {
    const handle = (await client.workflow.start(type, options)) as Handle<T>;
    return { handle: readableHandle(client, handle), workflowId, started: await startedHere(handle) };
  } catch (err) {
    if (key === undefined || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    // The key's run has closed and may not be started again: answer with it.
    const handle = client.workflow.getHandle(workflowId) as Handle<T>;
    await startedHere(handle);
    return { handle: readableHandle(client, handle), workflowId, started: false };
  }
}

export function workflowHandle<T extends WorkflowTypeName>(client: Client, type: T, idempotencyKey: string): Handle<T> {
  return readableHandle(client, client.workflow.getHandle(idempotentWorkflowId(type, idempotencyKey)));
}

export interface AttachOptions<T extends 'mediaGeneration' | 'batchJob'> extends StartOptions {
  options?: Omit<Extract<InputOf<T>, { attach: unknown }>, 'attach'>;
}

export const attachKey = (what: 'task' | 'batch', id: string): string => `attach-${what}:${id}`;

function startAttach<T extends 'mediaGeneration' | 'batchJob'>(
  client: Client,
  type: T,
  what: 'task' | 'batch',
  id: string,
  { options, ...opts }: AttachOptions<T>,
): Promise<Started<T>> {
  const idempotencyKey = opts.idempotencyKey ?? (opts.workflowId === undefined ? attachKey(what, id) : undefined);
  const input = { ...options, attach: { [`${what}Id`]: id } } as InputOf<T>;
  return startWorkflow(client, type, input, { ...opts, idempotencyKey });
}

export const attachTask = (client: Client, taskId: string, opts: AttachOptions<'mediaGeneration'> = {}) =>
  startAttach(client, 'mediaGeneration', 'task', taskId, opts);

export const attachBatch = (client: Client, batchId: string, opts: AttachOptions<'batchJob'> = {}) =>
  startAttach(client, 'batchJob', 'batch', batchId, opts);

/**
 * Sends a deploy to the endpoint's run, starting the run if it has none (update-with-start), and returns once the run
 * accepted it: `result()` gives the outcome once the endpoint serves, or its failure.
 */
export async function deployEndpoint(
  client: Client,
  request: DeployEndpointRequest,
  opts: { taskQueue?: string } = {},
) {
  assertEncryptedWrites(client, 'deployEndpoint');
  const checked = parseOrThrow(DeployEndpointRequest, request, (issues) => invalidInput('deployEndpoint', issues));
  const name = checked.config.name;
  const startWorkflowOperation = new WithStartWorkflowOperation(WorkflowType.serverlessEndpoint, {
    workflowId: serverlessEndpointWorkflowId(name),
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [{ name }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: SearchAttributes.operation, value: WorkflowType.serverlessEndpoint }],
    staticSummary: `serverless endpoint ${name}`,
  });
  return client.workflow.startUpdateWithStart(deployEndpointUpdate, {
    args: [request],
    waitForStage: 'ACCEPTED',
    startWorkflowOperation,
  });
}
