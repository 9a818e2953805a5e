// Our way: N mediaGeneration workflows on a real dev server and the worker in its own process, read
// back from outside: the timings each workflow's result reports, and the server's close time as the
// moment a caller has the result.
import { WorkflowType } from '../../src/api/names';
import type { MediaGenerationInput } from '../../src/api/schemas/media';
import type { mediaGeneration } from '../../src/workflows';
import { runWorkflowLoad, type LoadOptions, type LoadRun } from '../support/workflow-load';
import type { TaskRun } from './plain-runs';

type MediaResult = Awaited<ReturnType<typeof mediaGeneration>>;

export function mediaLoad(
  o: Omit<LoadOptions, 'workflowType' | 'args' | 'withResults'> & { input: (i: number) => MediaGenerationInput },
): Promise<LoadRun> {
  return runWorkflowLoad({
    ...o,
    workflowType: WorkflowType.mediaGeneration,
    args: (i) => [o.input(i)],
    withResults: true,
  });
}

/** One TaskRun per completed workflow. */
export function mediaTaskRuns(load: LoadRun): TaskRun[] {
  return load.workflows.flatMap((w) => {
    const result = w.result as MediaResult | undefined;
    if (!result || w.closedAt === undefined) return [];
    return [
      {
        taskId: result.taskId,
        startedAt: w.startedAt,
        submittedAt: Date.parse(result.timings.submittedAt),
        detectedAt: Date.parse(result.timings.doneAt),
        resolvedAt: w.closedAt,
        polls: result.polls,
      },
    ];
  });
}
