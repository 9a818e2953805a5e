// Starting a workflow from a backend: the input is checked with the workflow's own schema before
// anything is sent, the run carries a summary for the Web UI, and with an idempotency key a repeated
// request attaches to the job it already started instead of paying for a second one.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import {
  DEFAULT_TASK_QUEUE,
  IDEMPOTENCY_MEMO,
  parseInput,
  SearchAttributes,
  WorkflowSchemas,
  type IdempotencyMemo,
  type WorkflowTypeName,
} from '../api';
import { IdempotencyKeyReusedError, idempotentWorkflowId, inputFingerprint } from './idempotency';
import { workflowSummary } from './summary';

export interface StartOptions {
  /** Defaults to the service's default task queue (`platform-ops`). */
  taskQueue?: string;
  /**
   * The caller's name for this request (an order id, say). Starting again with the same key returns
   * the execution it started, running or closed, instead of a second job; with a different input it
   * fails with IdempotencyKeyReusedError. Becomes the workflow id `<workflowType>:<key>`.
   */
  idempotencyKey?: string;
  /** A workflow id of the caller's own, when there is no idempotency key (a random one otherwise). */
  workflowId?: string;
  /**
   * With an idempotency key, whether a key whose run failed, timed out, was cancelled or terminated
   * may start a new run. Off by default: a failed paid job may still have been charged, and repeating
   * it should be a decision, not a side effect of a retry.
   */
  retryFailedRuns?: boolean;
  /** One line for the Web UI's workflow list; a summary of the input by default. */
  summary?: string;
}

export interface Started<W extends Workflow> {
  handle: WorkflowHandle<W>;
  workflowId: string;
  /** False when an idempotency key named an execution that already existed. */
  started: boolean;
}

/**
 * Starts `type` with `input`, or, with an idempotency key, attaches to the execution the key names.
 * Throws the workflow's own InvalidInput failure (every bad field and its rule) before sending.
 */
export async function startWorkflow<W extends Workflow>(
  client: Client,
  type: WorkflowTypeName,
  input: unknown,
  opts: StartOptions = {},
): Promise<Started<W>> {
  const parsed: unknown = parseInput(WorkflowSchemas[type].input, input, type);
  const key = opts.idempotencyKey;
  const workflowId =
    key !== undefined ? idempotentWorkflowId(type, key) : (opts.workflowId ?? `${type}-${crypto.randomUUID()}`);
  // Only an idempotent start needs the input's fingerprint, and the nonce that tells a repeat from the
  // call that started the run.
  const fingerprint = key !== undefined ? inputFingerprint(parsed) : '';
  const nonce = crypto.randomUUID();
  try {
    const handle = (await client.workflow.start(type, {
      taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId,
      // The workflow parses the input again itself: it is what any client, in any language, sends.
      args: [input],
      typedSearchAttributes: [{ key: SearchAttributes.operation, value: type }],
      staticSummary: opts.summary ?? workflowSummary(type, parsed),
      memo: key !== undefined ? { [IDEMPOTENCY_MEMO]: { key, fingerprint, nonce } } : undefined,
      ...(key !== undefined
        ? {
            // A run still going: hand back that run. A closed one: the reuse policy below decides.
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: opts.retryFailedRuns ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
          }
        : {}),
    })) as WorkflowHandle<W>;
    if (key === undefined) return { handle, workflowId, started: true };
    const started = await startedByThisCall(handle, workflowId, fingerprint, nonce);
    return { handle, workflowId, started };
  } catch (err) {
    if (key === undefined || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    // The key's run has closed and may not be started again: answer with it.
    const handle = client.workflow.getHandle<W>(workflowId);
    await startedByThisCall(handle, workflowId, fingerprint, nonce);
    return { handle, workflowId, started: false };
  }
}

/** Whether this call started the key's run; throws when the run was started for another input. */
async function startedByThisCall(
  handle: WorkflowHandle,
  workflowId: string,
  fingerprint: string,
  nonce: string,
): Promise<boolean> {
  const description = await handle.describe();
  const memo = description.memo?.[IDEMPOTENCY_MEMO] as IdempotencyMemo | undefined;
  if (memo?.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(workflowId, description.runId);
  return memo.nonce === nonce;
}
