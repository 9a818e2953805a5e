// `start <workflow>`: starts any workflow by name, optionally waits and prints the result.
import { randomUUID } from 'node:crypto';
import { SearchAttributes, WorkflowType } from '../../api';
import { connectStarter } from '../connect';
import { toCliError } from '../failures';
import { renderMediaSummary } from '../media-summary';
import { assertWorkflowType, buildWorkflowInput, type InputFlags } from '../workflow-inputs';
import { waitWithMediaProgress, type ProgressStream } from './watch-media';

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
    const media = workflowType === WorkflowType.mediaGeneration;
    const result: unknown = await (media ? waitWithMediaProgress(handle, { stream: progress }) : handle.result()).catch(
      (err: unknown) => {
        throw toCliError(err, workflowId);
      },
    );
    out(JSON.stringify(result, null, 2));
    if (media) renderMediaSummary(result).forEach((line) => out(line));
  } finally {
    await close();
  }
}
