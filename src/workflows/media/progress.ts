// mediaGeneration's progress, for operators and the starter's progress bar: the `mediaProgress`
// query answers it at any time; the PlatformStatus search attribute follows status changes only.
import { setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { mediaProgressQuery, SearchAttributes, WorkflowType } from '../../api/names';
import {
  MEDIA_STATUS_BY_TASK_STATUS,
  type MediaProgress,
  type ParsedMediaGenerationInput,
  type TaskObservation,
} from '../../api/schemas/media';
import { trackStatus } from '../status';
import { isoTime } from '../../shared/time';

export function trackMediaProgress(input: ParsedMediaGenerationInput) {
  const status = trackStatus(WorkflowType.mediaGeneration, 'SUBMITTING', { memberId: input.memberId });
  if (input.costEstimate !== undefined) {
    upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: input.costEstimate }]);
  }
  let progress: MediaProgress = { generation: 1, polls: 0, submissions: 0, status: 'SUBMITTING' };
  setHandler(mediaProgressQuery, () => progress);

  const update = (patch: Partial<MediaProgress>) => {
    progress = { ...progress, ...patch };
    if (patch.status !== undefined) status.set(patch.status);
    status.detail({ ...progress });
  };

  return {
    /** A business status of the workflow's own (SUBMITTING, KEEPING_OUTPUTS, …). */
    set(statusName: string) {
      update({ status: statusName });
    },
    submitting(generation: number, submissions: number) {
      update({ status: generation > 1 ? 'REGENERATING' : 'SUBMITTING', generation, submissions, taskId: undefined });
    },
    submitted(taskId: string, submissions: number) {
      upsertSearchAttributes([{ key: SearchAttributes.taskId, value: taskId }]);
      update({ taskId, submissions, status: 'SUBMITTED', progressPercent: undefined, eta: undefined });
    },
    observed(o: TaskObservation, pollsBefore: number) {
      update({
        status: MEDIA_STATUS_BY_TASK_STATUS[o.status] ?? o.status,
        progressPercent: o.progressPercent,
        eta: o.eta,
        polls: pollsBefore + o.polls,
        taskPolls: o.polls,
        observedAt: isoTime(o.observedAt),
        nextPollAt: isoTime(o.nextPollAt),
      });
    },
    kept(outputs: { kind: string; uri: string }[]) {
      update({ outputs });
    },
    get current(): MediaProgress {
      return progress;
    },
  };
}
export type MediaProgressTracker = ReturnType<typeof trackMediaProgress>;
