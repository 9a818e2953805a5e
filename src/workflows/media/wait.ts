// Waiting for a submitted task to end. The poll activity runs again on its own after each poll, as
// the platform's hints say (retry-as-poll, src/activities/media/poll.ts), and comes back only at
// checkpoints (status change, progress step, end): this loop runs a handful of times per task however
// many polls are made, and a waiting task holds nothing on the worker.
import { ApplicationFailure, CancellationScope, condition, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import type { ParsedPollingOptions, TaskObservation } from './contract';
import type { Activities, CallbackFallback, TaskCheckpoint } from '../../activities/media/activities';
import type { TaskCallbackInbox } from './callback-inbox';
import { pollTimedOut, retryAsPollOptions } from '../retry-policies';
import { summarized } from '../activity-summary';

/**
 * Checkpoints on status changes only: with eta-aware polling nearly every poll crosses a progress
 * step, so each would cost a workflow task and the poll activity would rarely stay pending. Between
 * checkpoints the latest observation is in the pending poll's last failure, where the starter's
 * live progress reads it (src/workflows/media/starter.ts); the mediaProgress query answers the last
 * checkpoint.
 */
const PROGRESS_STEP = 0;

export async function waitForTaskEnd(
  taskId: string,
  polling: ParsedPollingOptions,
  deadlineAt: number,
  onCheckpoint: (observation: TaskObservation) => void,
  /** The submit's first look at the task (not ended): the wait starts from it. */
  first?: TaskObservation,
  /** The submit carried a callback URL: the end may come as a signal, and polls are only a safety net. */
  callbacks?: { inbox: TaskCallbackInbox; fallback: CallbackFallback },
): Promise<TaskCheckpoint> {
  let since: TaskObservation | undefined = first;
  for (;;) {
    const { pollTaskResult } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
    const poll = () =>
      summarized(
        pollTaskResult,
        `poll task ${taskId}`,
      )({
        taskId,
        polling,
        deadlineAt,
        since,
        progressStep: PROGRESS_STEP,
        fallback: callbacks?.fallback,
      });
    let checkpoint: TaskCheckpoint;
    try {
      checkpoint = callbacks ? await pollOrCallback(poll, taskId, callbacks.inbox, since) : await poll();
    } catch (err) {
      throw pollTimedOut(err) ? deadlineExceeded(taskId, deadlineAt, since) : err;
    }
    onCheckpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint;
    since = checkpoint.observation;
  }
}

/**
 * The next checkpoint: the poll's, or the callback's if it comes first (or came already, even before
 * the submit answered). The losing poll is cancelled, so a callback costs no platform call; a lost
 * callback only means the poll, planned far apart, finds the end.
 */
async function pollOrCallback(
  poll: () => Promise<TaskCheckpoint>,
  taskId: string,
  inbox: TaskCallbackInbox,
  since: TaskObservation | undefined,
): Promise<TaskCheckpoint> {
  const told = () => inbox.endOf(taskId);
  if (!told()) {
    const polled = await CancellationScope.cancellable(async () => {
      const pending = poll();
      const called = condition(() => told() !== undefined);
      // The loser is cancelled below; its rejection is expected, not unhandled.
      pending.catch(() => undefined);
      called.catch(() => undefined);
      try {
        return await Promise.race([pending, called.then(() => undefined)]);
      } finally {
        CancellationScope.current().cancel();
      }
    });
    if (polled) return polled;
  }
  const end = told()!;
  return {
    observation: {
      taskId,
      status: end.status,
      reason: end.reason || undefined,
      polls: since?.polls ?? 0,
      // When the workflow heard of it: what a caller waits for.
      observedAt: Date.now(),
      firstProcessingAt: since?.firstProcessingAt,
    },
    terminal: true,
    outputs: end.outputs,
    nsfwDetection: end.nsfwDetection,
  };
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
