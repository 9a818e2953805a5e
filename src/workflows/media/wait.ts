// Waiting for a submitted task to end. The heartbeating wait activity polls by the platform's hints
// and comes back only at checkpoints (status change, progress step, end), so this loop runs a handful
// of times per task however many polls are made, and the history stays small.
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { PollingOptions, TaskObservation } from '../../api/schemas/media';
import type { Activities, TaskCheckpoint } from '../../activities';

/** Checkpoints every 25 %: the query's progress stays fresh at the cost of at most 4 extra round trips. */
const PROGRESS_STEP = 25;

export async function waitForTaskEnd(
  taskId: string,
  polling: PollingOptions,
  deadlineAt: number,
  deadlineSeconds: number,
  onCheckpoint: (observation: TaskObservation) => void,
): Promise<TaskCheckpoint> {
  const { waitForTaskResult } = proxyActivities<Activities>({
    // The activity enforces the deadline itself; these bounds catch a stuck or lost worker.
    scheduleToCloseTimeout: deadlineSeconds * 1000 + 60_000,
    // Short, so a lost worker is replaced and a cancellation reaches the poller within seconds.
    heartbeatTimeout: '10s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
    // Cancelling the workflow ends only once the poller has stopped: no poll after the cancel.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  let resume: TaskObservation | undefined;
  for (;;) {
    const checkpoint = await waitForTaskResult({ taskId, polling, deadlineAt, resume, progressStep: PROGRESS_STEP });
    onCheckpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint;
    resume = checkpoint.observation;
  }
}
