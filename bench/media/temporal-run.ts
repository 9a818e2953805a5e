// Our way: N mediaGeneration workflows on a real dev server and worker, started at once.
import type { Client } from '@temporalio/client';
import { WorkflowType } from '../../src/api/names';
import type { mediaGeneration } from '../../src/workflows';
import type { TaskRun } from './plain-runs';

export async function workflowRun(
  client: Client,
  taskQueue: string,
  workflowId: string,
  prompt: string,
): Promise<TaskRun> {
  const result = await client.workflow.execute<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue,
    workflowId,
    args: [{ operation: 'text-to-video', request: { prompt }, keepOutputs: false }],
  });
  return { taskId: result.taskId, detectedAt: Date.parse(result.timings.doneAt), polls: result.polls };
}
