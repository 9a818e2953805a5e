// batchJob's progress for operators and the starter: the `batchProgress` query (`current`; the
// workflow registers it at its top), and PlatformStatus / PlatformTaskId search attributes that
// change with the status only.
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes } from '../../api/contract';
import { WorkflowType } from '../operations';
import type {
  BatchJobOwnStatus,
  BatchJobStatus,
  BatchObservation,
  BatchProgress,
  ParsedBatchJobInput,
} from './contract';
import { trackStatus } from '../status';
import { isoTime } from '../../shared/time';

export function trackBatchProgress(input: ParsedBatchJobInput) {
  const status = trackStatus<BatchJobStatus>(WorkflowType.batchJob, 'STARTING', { memberId: input.memberId });
  if (input.costEstimate !== undefined) {
    upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: input.costEstimate }]);
  }
  let progress: BatchProgress = { status: 'STARTING', polls: 0 };

  const update = (patch: Partial<BatchProgress>) => {
    progress = { ...progress, ...patch };
    if (patch.status !== undefined) status.set(patch.status);
    status.detail({ ...progress });
  };

  return {
    /** The business status: what the `status` query answers (`status.current`). */
    status,
    /** A status of the workflow's own (UPLOADING, CANCELLING, …); the platform's come with observed(). */
    set(statusName: BatchJobOwnStatus, patch: Partial<BatchProgress> = {}) {
      update({ ...patch, status: statusName });
    },
    /** Facts that do not change the status. */
    note(patch: Omit<Partial<BatchProgress>, 'status'>) {
      update(patch);
    },
    created(batchId: string, inputFileId: string, windowEndsAt: number) {
      upsertSearchAttributes([{ key: SearchAttributes.taskId, value: batchId }]);
      update({ batchId, inputFileId, windowEndsAt: isoTime(windowEndsAt) });
    },
    observed(o: BatchObservation, pollsBefore: number) {
      const before = progress.requestCounts;
      const c = o.requestCounts;
      if (!before || before.total !== c.total || before.completed !== c.completed || before.failed !== c.failed) {
        upsertSearchAttributes([
          { key: SearchAttributes.requestsCompleted, value: c.completed },
          { key: SearchAttributes.requestsFailed, value: c.failed },
        ]);
      }
      update({
        status: o.status,
        requestCounts: o.requestCounts,
        polls: pollsBefore + o.polls,
        observedAt: isoTime(o.observedAt),
        nextPollAt: isoTime(o.nextPollAt),
      });
    },
    get current(): BatchProgress {
      return progress;
    },
  };
}

export type BatchProgressTracker = ReturnType<typeof trackBatchProgress>;
