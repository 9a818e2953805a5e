// `start <workflow>`: starts any workflow by name, optionally waits and prints the result.
import { randomUUID } from 'node:crypto';
import { batchProgressQuery, SearchAttributes, WorkflowType, type BatchProgress } from '../../api';
import { renderBatchProgress, renderBatchSummary } from '../batch-progress';
import { connectStarter } from '../connect';
import { toCliError } from '../failures';
import { renderMediaSummary } from '../media-summary';
import { assertWorkflowType, buildWorkflowInput, type InputFlags } from '../workflow-inputs';
import { waitWithMediaProgress, waitWithProgress, type ProgressStream, type ProgressView } from './watch-media';

const BATCH_VIEW: ProgressView<BatchProgress> = {
  render: renderBatchProgress,
  changeKey: (p) => `${p.status}|${p.requestCounts?.completed ?? ''}|${p.requestCounts?.failed ?? ''}`,
};

export interface StartOptions extends InputFlags {
  id?: string;
  wait?: boolean;
  taskQueue?: string;
}

/** `progress` receives mediaGeneration's live progress (stderr by default; stdout is for the result). */
export async function startCommand(
  type: string,
  opts: StartOptions,
  out: (line: string) => void,
  progress: ProgressStream = process.stderr,
): Promise<void> {
  const workflowType = assertWorkflowType(type);
  const input = buildWorkflowInput(workflowType, opts);
  const { client, settings, close } = await connectStarter();
  const workflowId = opts.id ?? `${workflowType}-${randomUUID().slice(0, 8)}`;
  try {
    const handle = await client.workflow
      .start(workflowType, {
        taskQueue: opts.taskQueue ?? settings.taskQueue,
        workflowId,
        args: [input],
        typedSearchAttributes: [{ key: SearchAttributes.operation, value: workflowType }],
      })
      .catch((err: unknown) => {
        throw toCliError(err, workflowId);
      });
    out(`Started ${workflowType} as workflow ${handle.workflowId} (run ${handle.firstExecutionRunId}).`);
    if (!opts.wait) return;
    const watch = { stream: progress };
    const waiting =
      workflowType === WorkflowType.mediaGeneration
        ? waitWithMediaProgress(handle, watch)
        : workflowType === WorkflowType.batchJob
          ? waitWithProgress(
              { progress: () => handle.query(batchProgressQuery), result: () => handle.result() },
              BATCH_VIEW,
              watch,
            )
          : handle.result();
    const result: unknown = await waiting.catch((err: unknown) => {
      throw toCliError(err, workflowId);
    });
    out(JSON.stringify(result, null, 2));
    if (workflowType === WorkflowType.mediaGeneration) renderMediaSummary(result).forEach((line) => out(line));
    if (workflowType === WorkflowType.batchJob) renderBatchSummary(result).forEach((line) => out(line));
  } finally {
    await close();
  }
}
