// `start <workflow>`: starts any workflow by name, optionally waits and prints the result.
import type { WorkflowHandle } from '@temporalio/client';
import { batchProgressQuery, type BatchProgress } from '../../workflows/batch/contract';
import { budgetJobProgressQuery, type BudgetJobProgress } from '../../workflows/budget/contract';
import { WorkflowType } from '../../workflows/operations';
import { lastBatchPoll, renderBatchProgress, renderBatchSummary, withLastPoll } from '../batch-progress';
import { IdempotencyKeyReusedError, startWorkflow } from '../../../packages/client/src';
import { renderBudgetJobProgress, renderBudgetJobSummary } from '../budget-progress';
import { withStarter } from '../connect';
import { CliError, ExitCode } from '../exit-codes';
import { toCliError } from '../failures';
import { renderMediaSummary } from '../media-summary';
import { assertWorkflowType, buildWorkflowInput, type InputFlags } from '../workflow-inputs';
import { waitWithMediaProgress, waitWithProgress, type ProgressStream, type ProgressView } from '../watch-progress';

const BATCH_VIEW: ProgressView<BatchProgress> = {
  render: renderBatchProgress,
  changeKey: (p) => `${p.status}|${p.requestCounts?.completed ?? ''}|${p.requestCounts?.failed ?? ''}`,
};

const BUDGET_VIEW: ProgressView<BudgetJobProgress> = {
  render: renderBudgetJobProgress,
  changeKey: (p) => `${p.status}|${p.checks}|${p.childWorkflowId ?? ''}`,
};

/** The result, with the workflow's own progress on `stream` meanwhile where it has a progress query. */
function waitWithWatch(type: string, handle: WorkflowHandle, stream: ProgressStream): Promise<unknown> {
  const watch = { stream };
  const result = () => handle.result();
  switch (type) {
    case WorkflowType.mediaGeneration:
      return waitWithMediaProgress(handle, watch);
    case WorkflowType.batchJob:
      return waitWithProgress({ progress: () => batchProgress(handle), result }, BATCH_VIEW, watch);
    case WorkflowType.budgetGatedJob:
      return waitWithProgress({ progress: () => handle.query(budgetJobProgressQuery), result }, BUDGET_VIEW, watch);
    default:
      return result();
  }
}

/** batchJob: the query, with the follow activity's newer poll laid over it. */
async function batchProgress(handle: WorkflowHandle): Promise<BatchProgress> {
  const queried = await handle.query(batchProgressQuery);
  const described = await handle.describe().catch(() => undefined);
  return withLastPoll(queried, lastBatchPoll(described?.raw.pendingActivities));
}

export interface StartOptions extends InputFlags {
  id?: string;
  idempotencyKey?: string;
  retryFailed?: boolean;
  wait?: boolean;
  taskQueue?: string;
}

/** `progress` receives the live progress where there is one (stderr by default; stdout is for the result). */
export async function startCommand(
  type: string,
  opts: StartOptions,
  out: (line: string) => void,
  progress: ProgressStream = process.stderr,
): Promise<void> {
  const workflowType = assertWorkflowType(type);
  const input = buildWorkflowInput(workflowType, opts);
  if (opts.id !== undefined && opts.idempotencyKey !== undefined) {
    throw new CliError('--id and --idempotency-key both name the workflow: give one of them.', ExitCode.Usage);
  }
  await withStarter(async ({ client, settings }) => {
    const { handle, workflowId, started } = await startWorkflow(client, workflowType, input as never, {
      taskQueue: opts.taskQueue ?? settings.taskQueue,
      workflowId: opts.id ?? `${workflowType}-${crypto.randomUUID().slice(0, 8)}`,
      idempotencyKey: opts.idempotencyKey,
      retryFailedRuns: opts.retryFailed,
    }).catch((err: unknown) => {
      if (err instanceof IdempotencyKeyReusedError) throw new CliError(err.message, ExitCode.AlreadyStarted);
      throw toCliError(err, opts.id);
    });
    out(
      started
        ? `Started ${workflowType} as workflow ${workflowId}.`
        : `Already started for this idempotency key: workflow ${workflowId} (nothing new was started).`,
    );
    if (opts.wait) await waitAndPrint(workflowType, handle, workflowId, out, progress);
  });
}

/** Waits for the run (with its live progress on `progress`), then prints the result and its summary. */
export async function waitAndPrint(
  workflowType: string,
  handle: WorkflowHandle,
  workflowId: string,
  out: (line: string) => void,
  progress: ProgressStream,
): Promise<void> {
  const result: unknown = await waitWithWatch(workflowType, handle, progress).catch((err: unknown) => {
    throw toCliError(err, workflowId);
  });
  out(JSON.stringify(result, null, 2));
  if (workflowType === WorkflowType.mediaGeneration) renderMediaSummary(result).forEach((line) => out(line));
  if (workflowType === WorkflowType.batchJob) renderBatchSummary(result).forEach((line) => out(line));
  if (workflowType === WorkflowType.budgetGatedJob) {
    const summary = renderBudgetJobSummary(result);
    if (summary) out(summary);
  }
}
