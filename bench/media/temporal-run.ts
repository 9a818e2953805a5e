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
  const startedAt = Date.now();
  const result = await client.workflow.execute<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue,
    workflowId,
    args: [{ operation: 'text-to-video', request: { prompt }, keepOutputs: false }],
  });
  return {
    taskId: result.taskId,
    startedAt,
    submittedAt: Date.parse(result.timings.submittedAt),
    detectedAt: Date.parse(result.timings.doneAt),
    resolvedAt: Date.now(),
    polls: result.polls,
  };
}
