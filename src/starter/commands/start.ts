// `start <workflow>`: starts any workflow by name, optionally waits and prints the result.
import { randomUUID } from 'node:crypto';
import { SearchAttributes } from '../../api';
import { connectStarter } from '../connect';
import { toCliError } from '../failures';
import { assertWorkflowType, buildWorkflowInput, type InputFlags } from '../workflow-inputs';

export interface StartOptions extends InputFlags {
  id?: string;
  wait?: boolean;
  taskQueue?: string;
}

export async function startCommand(type: string, opts: StartOptions, out: (line: string) => void): Promise<void> {
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
    const result: unknown = await handle.result().catch((err: unknown) => {
      throw toCliError(err, workflowId);
    });
    out(JSON.stringify(result, null, 2));
  } finally {
    await close();
  }
}
