// `start <workflow>`: starts any workflow by name, optionally waits and prints the result.
import type { WorkflowHandle } from '@temporalio/client';
import { IdempotencyKeyReusedError, startWorkflow } from '../../../packages/client/src';
import { withStarter } from '../connect';
import { CliError, ExitCode } from '../exit-codes';
import { toCliError } from '../failures';
import { waitWithProgress, type ProgressStream } from '../progress';
import {
  assertWorkflowType,
  buildWorkflowInput,
  watchOf,
  type InputFlags,
  type StartableWorkflowType,
} from '../workflow-inputs';

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
  workflowType: StartableWorkflowType,
  handle: WorkflowHandle,
  workflowId: string,
  out: (line: string) => void,
  progress: ProgressStream,
): Promise<void> {
  const view = watchOf(workflowType);
  const result: unknown = await (view ? waitWithProgress(handle, view, { stream: progress }) : handle.result()).catch(
    (err: unknown) => {
      throw toCliError(err, workflowId);
    },
  );
  out(JSON.stringify(result, null, 2));
  for (const line of view?.summary?.(result) ?? []) out(line);
}
