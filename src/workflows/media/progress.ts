// mediaGeneration's progress, for operators and the starter's progress bar: the `mediaProgress`
// query answers it at any time (`current`; the workflow registers the query at its top); the
// PlatformStatus search attribute follows status changes only.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes } from '../../api/contract';
import { WorkflowType } from '../operations';
import {
  isMediaAttach,
  MEDIA_STATUS_BY_TASK_STATUS,
  type MediaGenerationOwnStatus,
  type MediaGenerationStatus,
  type MediaProgress,
  type ParsedMediaGenerationInput,
  type TaskObservation,
} from './contract';
import { trackStatus } from '../status';
import { isoTime } from '../../shared/time';

export function trackMediaProgress(input: ParsedMediaGenerationInput) {
  // An attached task is known from the start: its id goes in the first upsert, with ATTACHING.
  const attachedTaskId = isMediaAttach(input) ? input.attach.taskId : undefined;
  const initial: MediaGenerationOwnStatus = attachedTaskId === undefined ? 'SUBMITTING' : 'ATTACHING';
  const status = trackStatus<MediaGenerationStatus>(WorkflowType.mediaGeneration, initial, {
    memberId: input.memberId,
    taskId: attachedTaskId,
  });
  if (input.costEstimate !== undefined) {
    upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: input.costEstimate }]);
  }
  let progress: MediaProgress = {
    generation: 1,
    polls: 0,
    submissions: 0,
    status: initial,
    ...(attachedTaskId === undefined ? {} : { taskId: attachedTaskId }),
  };

  const update = (patch: Partial<MediaProgress>, also?: SearchAttributeUpdatePair[]) => {
    progress = { ...progress, ...patch };
    if (patch.status !== undefined) status.set(patch.status, undefined, also);
    status.detail({ ...progress });
  };
  const observedPatch = (o: TaskObservation, pollsBefore: number): Partial<MediaProgress> => ({
    status: MEDIA_STATUS_BY_TASK_STATUS[o.status] ?? o.status,
    progressPercent: o.progressPercent,
    eta: o.eta,
    polls: pollsBefore + o.polls,
    taskPolls: o.polls,
    observedAt: isoTime(o.observedAt),
    nextPollAt: isoTime(o.nextPollAt),
  });

  return {
    /** The business status: what the `status` query answers (`status.current`). */
    status,
    /** A business status of the workflow's own (SUBMITTING, KEEPING_OUTPUTS, …). */
    set(statusName: MediaGenerationOwnStatus) {
      update({ status: statusName });
    },
    submitting(generation: number, submissions: number) {
      update({ status: generation > 1 ? 'REGENERATING' : 'SUBMITTING', generation, submissions, taskId: undefined });
    },
    /**
     * With the submit's first look, the task id and the status it shows go in one upsert. Without
     * one (a callback is expected, or the look failed or saw the task ended), two upserts.
     */
    submitted(taskId: string, submissions: number, firstLook?: TaskObservation, pollsBefore = 0) {
      const taskIdAttribute = { key: SearchAttributes.taskId, value: taskId };
      if (firstLook) {
        update({ taskId, submissions, ...observedPatch(firstLook, pollsBefore) }, [taskIdAttribute]);
        return;
      }
      upsertSearchAttributes([taskIdAttribute]);
      update({ taskId, submissions, status: 'SUBMITTED', progressPercent: undefined, eta: undefined });
    },
    observed(o: TaskObservation, pollsBefore: number) {
      update(observedPatch(o, pollsBefore));
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
