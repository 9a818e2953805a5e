// Our way: N mediaGeneration workflows on a real dev server and the worker in its own process, read
// back from outside: the timings each workflow's result reports, and the server's close time as the
// moment a caller has the result.
import { type MediaGenerationInput, startRequest, WorkflowType } from '@platform-ops/client';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import type { Client } from '@temporalio/client';
import { mapBounded } from '../../src/shared/lanes';
import { activityMoments, phaseFigures, workflowMoments, type PhaseFigures } from '../support/history-phases';
import { runWorkflowLoad, type LoadOptions, type LoadRun } from '../support/workflow-load';
import type { TaskRun } from './plain-runs';

type MediaResult = Awaited<ReturnType<typeof mediaGeneration>>;

/** How a load's runs are started: by the service's client (`startWorkflow`'s request), or by a plain Temporal client. */
export type StartedBy = 'client' | 'plain';

export function mediaLoad(
  o: Omit<LoadOptions, 'workflowType' | 'args' | 'withResults'> & {
    input: (i: number) => MediaGenerationInput;
    startedBy?: StartedBy;
  },
): Promise<LoadRun> {
  const type = WorkflowType.mediaGeneration;
  return runWorkflowLoad({
    ...o,
    workflowType: type,
    args: (i) => [o.input(i)],
    withResults: true,
    ...(o.startedBy === 'client' && {
      startOptions: (i, workflowId) => startRequest(type, o.input(i), { taskQueue: o.taskQueue, workflowId }).options,
    }),
  });
}

/** N text-to-video generations started at once, outputs not kept (what the media benchmarks measure). */
export function textToVideoLoad(
  o: Omit<LoadOptions, 'workflowType' | 'args' | 'withResults' | 'startWindowMs'> & {
    prompt: (i: number) => string;
    startedBy?: StartedBy;
  },
): Promise<LoadRun> {
  return mediaLoad({
    ...o,
    startWindowMs: 0,
    input: (i) => ({ operation: 'text-to-video', request: { prompt: o.prompt(i) }, keepOutputs: false }),
  });
}

/** One TaskRun per completed workflow, its task's moments read from its result by `fromResult`. */
export function taskRuns<R>(
  load: LoadRun,
  fromResult: (result: R) => Omit<TaskRun, 'startedAt' | 'resolvedAt'>,
): TaskRun[] {
  return load.workflows.flatMap((w) => {
    const result = w.result as R | undefined;
    if (!result || w.closedAt === undefined) return [];
    return [{ ...fromResult(result), startedAt: w.startedAt, resolvedAt: w.closedAt }];
  });
}

export const mediaTaskRuns = (load: LoadRun): TaskRun[] =>
  taskRuns<MediaResult>(load, (result) => ({
    taskId: result.taskId,
    submittedAt: Date.parse(result.timings.submittedAt!),
    detectedAt: Date.parse(result.timings.doneAt),
    polls: result.polls,
  }));

/**
 * Where the submit lag goes, from each completed workflow's history: the start call until the
 * server took it (client clock), until the first workflow task ran and ended, until a worker took
 * the submit activity, and the submit itself (the same machine's clock throughout).
 */
export async function submitPhases(client: Client, load: LoadRun): Promise<PhaseFigures> {
  const rows = await mapBounded(
    load.workflows.filter((w) => w.status === 'COMPLETED'),
    32,
    async (w) => {
      const events = (await client.workflow.getHandle(w.workflowId).fetchHistory()).events ?? [];
      const submit = activityMoments(events, 'submitMediaTask');
      const result = w.result as MediaResult | undefined;
      return {
        called: w.startedAt,
        ...workflowMoments(events),
        submitScheduled: submit.scheduled,
        submitStarted: submit.started,
        submitted: result ? Date.parse(result.timings.submittedAt!) : undefined,
      };
    },
  );
  return phaseFigures(rows, {
    'start called → server started it': ['called', 'started'],
    'started → first workflow task runs': ['started', 'firstTask'],
    'first workflow task runs': ['firstTask', 'firstTaskDone'],
    'submit activity waits for a worker': ['submitScheduled', 'submitStarted'],
    'submit activity until the platform took it': ['submitStarted', 'submitted'],
    'start called → the platform took the submit': ['called', 'submitted'],
  });
}
