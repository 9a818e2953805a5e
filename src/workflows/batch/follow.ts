// Following the platform batch until it ends. The heartbeating activity comes back only at
// checkpoints, so this loop runs a handful of times however long the batch takes.
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { BatchObservation, BatchPollingOptions } from '../../api/schemas/batch';
import type { Activities } from '../../activities';

/** A checkpoint every 10 % of the requests: the query's counts stay fresh for a few events each. */
const PROGRESS_STEP = 10;

export function batchFollower(maxWaitMs: number) {
  const { waitForBatch } = proxyActivities<Activities>({
    scheduleToCloseTimeout: maxWaitMs,
    // A lost worker is replaced within half a minute; the next attempt resumes from the heartbeat.
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    // The window timer or a cancel stops polling before anything else happens.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

  /** Resolves with the terminal observation; `onCheckpoint` sees every one before it. */
  return async function followBatch(
    batchId: string,
    polling: BatchPollingOptions,
    from: BatchObservation,
    onCheckpoint: (o: BatchObservation) => void,
    progressStep = PROGRESS_STEP,
  ): Promise<BatchObservation> {
    let resume = from;
    for (;;) {
      const checkpoint = await waitForBatch({ batchId, polling, resume, progressStep });
      onCheckpoint(checkpoint.observation);
      if (checkpoint.terminal) return checkpoint.observation;
      resume = checkpoint.observation;
    }
  };
}
