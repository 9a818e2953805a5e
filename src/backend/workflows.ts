// One typed start helper per workflow a backend starts: the input type is the workflow's own, and the
// handle's result(), query() and cancel() are typed by the workflow function.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import {
  WorkflowType,
  type BatchJobInput,
  type BillingReportInput,
  type BudgetGatedJobInput,
  type EvaluateDecisionInput,
  type MediaAttachInput,
  type BatchAttachInput,
  type MediaGenerationInput,
  type RenewInstanceInput,
  type RestartInstanceInput,
  type AutoRenewInput,
  type CreateInstanceInput,
  type StartInstanceInput,
  type StopInstanceInput,
  type DeleteInstanceInput,
} from '../api';
import type * as workflows from '../workflows';
import { idempotentWorkflowId } from './idempotency';
import { startWorkflow, type StartOptions, type Started } from './start';

type Start<I, W extends Workflow> = (client: Client, input: I, opts?: StartOptions) => Promise<Started<W>>;

const starter =
  <I, W extends Workflow>(type: (typeof WorkflowType)[keyof typeof WorkflowType]): Start<I, W> =>
  (client, input, opts) =>
    startWorkflow<W>(client, type, input, opts);

export const startMediaGeneration = starter<MediaGenerationInput, typeof workflows.mediaGeneration>(
  WorkflowType.mediaGeneration,
);
export const startBatchJob = starter<BatchJobInput, typeof workflows.batchJob>(WorkflowType.batchJob);
export const startRenewInstance = starter<RenewInstanceInput, typeof workflows.renewInstance>(
  WorkflowType.renewInstance,
);
export const startRestartInstance = starter<RestartInstanceInput, typeof workflows.restartInstance>(
  WorkflowType.restartInstance,
);
export const startEvaluateDecision = starter<EvaluateDecisionInput, typeof workflows.evaluateDecision>(
  WorkflowType.evaluateDecision,
);
export const startBillingReport = starter<BillingReportInput, typeof workflows.billingReport>(
  WorkflowType.billingReport,
);
export const startBudgetGatedJob = starter<BudgetGatedJobInput, typeof workflows.budgetGatedJob>(
  WorkflowType.budgetGatedJob,
);

export const startAutoRenew = starter<AutoRenewInput, typeof workflows.autoRenew>(WorkflowType.autoRenew);
export const startCreateInstance = starter<CreateInstanceInput, typeof workflows.createInstance>(
  WorkflowType.createInstance,
);
export const startStartInstance = starter<StartInstanceInput, typeof workflows.startInstance>(
  WorkflowType.startInstance,
);
export const startStopInstance = starter<StopInstanceInput, typeof workflows.stopInstance>(WorkflowType.stopInstance);
export const startDeleteInstance = starter<DeleteInstanceInput, typeof workflows.deleteInstance>(
  WorkflowType.deleteInstance,
);

/** The run an idempotency key names, typed, without starting anything (to wait on or query later). */
export function mediaGenerationHandle(
  client: Client,
  idempotencyKey: string,
): WorkflowHandle<typeof workflows.mediaGeneration> {
  return client.workflow.getHandle(idempotentWorkflowId(WorkflowType.mediaGeneration, idempotencyKey));
}

/**
 * Start options of an attach. Without an idempotency key or a workflow id, the key is
 * `attach-task:<taskId>` (`attach-batch:<batchId>`): attaching to the same task twice answers with the
 * run the first attach started (workflow id `mediaGeneration:attach-task:<taskId>`), running or closed.
 */
export interface AttachOptions<I> extends StartOptions {
  /** The attach form's own options (polling, deadlineSeconds, keepOutputs, memberId …). */
  options?: Omit<I, 'attach'>;
}

/** The default idempotency key of an attach: one run per task or batch. */
export const attachKey = (what: 'task' | 'batch', id: string): string => `attach-${what}:${id}`;

const attachStart = (what: 'task' | 'batch', id: string, opts: StartOptions): StartOptions => ({
  ...opts,
  idempotencyKey: opts.idempotencyKey ?? (opts.workflowId === undefined ? attachKey(what, id) : undefined),
});

/** Follows a task submitted elsewhere to its end and keeps its outputs (mediaGeneration's attach form). */
export function attachTask(
  client: Client,
  taskId: string,
  { options, ...opts }: AttachOptions<MediaAttachInput> = {},
): Promise<Started<typeof workflows.mediaGeneration>> {
  return startMediaGeneration(client, { ...options, attach: { taskId } }, attachStart('task', taskId, opts));
}

/** Follows a batch created elsewhere to its end and keeps its files (batchJob's attach form). */
export function attachBatch(
  client: Client,
  batchId: string,
  { options, ...opts }: AttachOptions<BatchAttachInput> = {},
): Promise<Started<typeof workflows.batchJob>> {
  return startBatchJob(client, { ...options, attach: { batchId } }, attachStart('batch', batchId, opts));
}
