// Waiting for a submitted task to end. The poll activity runs again on its own after each poll, as
// the platform's hints say (retry-as-poll, src/activities/media/poll.ts), and comes back only at
// checkpoints (status change, progress step, end): this loop runs a handful of times per task however
// many polls are made, and a waiting task holds nothing on the worker.
import {
  ActivityCancellationType,
  ApplicationFailure,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import type { ParsedPollingOptions, TaskObservation } from '../../api/schemas/media';
import type { Activities, TaskCheckpoint } from '../../activities';
import { Patch } from '../patches';
import { pollTimedOut, retryAsPollOptions } from '../retry-policies';
import { summarized } from '../activity-summary';

/** The heartbeating wait checkpoints every 25 % (each checkpoint is a workflow task). */
const PROGRESS_STEP = 25;

/**
 * Retry-as-poll checkpoints on status changes only: with eta-aware polling nearly every poll crossed
 * a 25 % step, so each cost a workflow task and the poll activity rarely stayed pending. Between
 * checkpoints the latest observation is in the pending poll's last failure, where the starter's
 * live progress reads it (src/starter/live-progress.ts); the mediaProgress query answers the last
 * checkpoint.
 */
const RETRY_AS_POLL_PROGRESS_STEP = 0;

export async function waitForTaskEnd(
  taskId: string,
  polling: ParsedPollingOptions,
  deadlineAt: number,
  deadlineSeconds: number,
  onCheckpoint: (observation: TaskObservation) => void,
  /** The submit's first look at the task (not ended): the wait starts from it. */
  first?: TaskObservation,
): Promise<TaskCheckpoint> {
  if (!patched(Patch.mediaRetryAsPoll)) {
    return waitWithHeartbeats(taskId, polling, deadlineAt, deadlineSeconds, onCheckpoint, first);
  }
  let since: TaskObservation | undefined = first;
  for (;;) {
    const { pollTaskResult } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
    let checkpoint: TaskCheckpoint;
    try {
      checkpoint = await summarized(
        pollTaskResult,
        `poll task ${taskId}`,
      )({
        taskId,
        polling,
        deadlineAt,
        since,
        progressStep: RETRY_AS_POLL_PROGRESS_STEP,
      });
    } catch (err) {
      throw pollTimedOut(err) ? deadlineExceeded(taskId, deadlineAt, since) : err;
    }
    onCheckpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint;
    since = checkpoint.observation;
  }
}

function deadlineExceeded(taskId: string, deadlineAt: number, last: TaskObservation | undefined) {
  return ApplicationFailure.create({
    type: FailureType.DeadlineExceeded,
    nonRetryable: true,
    message:
      `Task ${taskId} did not end before the deadline ${new Date(deadlineAt).toISOString()} ` +
      `(workflow ${workflowInfo().workflowId}); the task may still finish (and be charged) on the platform.`,
    details: [{ taskId, last }],
  });
}

/** The design before retry-as-poll, kept for runs that were waiting in it when the worker was upgraded. */
async function waitWithHeartbeats(
  taskId: string,
  polling: ParsedPollingOptions,
  deadlineAt: number,
  deadlineSeconds: number,
  onCheckpoint: (observation: TaskObservation) => void,
  first: TaskObservation | undefined,
): Promise<TaskCheckpoint> {
  const { waitForTaskResult } = proxyActivities<Activities>({
    scheduleToCloseTimeout: deadlineSeconds * 1000 + 60_000,
    heartbeatTimeout: '10s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  let resume: TaskObservation | undefined = first;
  for (;;) {
    const checkpoint = await summarized(
      waitForTaskResult,
      `wait for task ${taskId}`,
    )({ taskId, polling, deadlineAt, resume, progressStep: PROGRESS_STEP });
    onCheckpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint;
    resume = checkpoint.observation;
  }
}
