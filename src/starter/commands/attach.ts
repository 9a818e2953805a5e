// `attach task <id>` / `attach batch <id>`: follow a task or batch that already exists on the platform
// (submitted elsewhere) to its end and keep its outputs, without sending anything paid. Attaching to
// the same id again answers with the run the first attach started (backend.attachTask's key).
import { attachBatch, attachTask, IdempotencyKeyReusedError, WorkflowType } from '../../../packages/client/src';
import { withStarter } from '../connect';
import { CliError, ExitCode } from '../exit-codes';
import { toCliError } from '../failures';
import type { ProgressStream } from '../progress';
import { waitAndPrint } from './start';

export interface AttachOptions {
  wait?: boolean;
  taskQueue?: string;
  memberId?: string;
}

export async function attachCommand(
  kind: string,
  id: string,
  opts: AttachOptions,
  out: (line: string) => void,
  progress: ProgressStream = process.stderr,
): Promise<void> {
  if (kind !== 'task' && kind !== 'batch') {
    throw new CliError(`attach takes "task <taskId>" or "batch <batchId>", not "${kind}".`, ExitCode.Usage);
  }
  const workflowType = kind === 'task' ? WorkflowType.mediaGeneration : WorkflowType.batchJob;
  await withStarter(async ({ client, settings }) => {
    const start = { taskQueue: opts.taskQueue ?? settings.taskQueue, options: { memberId: opts.memberId } };
    const { handle, workflowId, started } = await (
      kind === 'task' ? attachTask(client, id, start) : attachBatch(client, id, start)
    ).catch((err: unknown) => {
      if (err instanceof IdempotencyKeyReusedError) throw new CliError(err.message, ExitCode.AlreadyStarted);
      throw toCliError(err);
    });
    out(
      started
        ? `Attached to ${kind} ${id}: following it as ${workflowType} workflow ${workflowId}.`
        : `Already attached to ${kind} ${id}: workflow ${workflowId} (nothing new was started).`,
    );
    if (opts.wait) await waitAndPrint(workflowType, handle, workflowId, out, progress);
  });
}
