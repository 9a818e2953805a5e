// Following the platform batch until it ends. The poll activity runs again on its own after each poll
// (retry-as-poll, src/activities/batch/poll.ts) and comes back only at checkpoints, so this loop
// runs a handful of times however long the batch takes, and a waiting batch holds nothing on the
// worker. The window is not the activity's: the workflow's timer cancels the follow (./job.ts).
import { ActivityCancellationType, patched, proxyActivities } from '@temporalio/workflow';
import type { BatchObservation, ParsedBatchPollingOptions } from './contract';
import type { Activities } from '../../activities/batch/activities';
import { Patch } from '../patches';
import { retryAsPollOptions } from '../retry-policies';
import { summarized } from '../activity-summary';

/** A checkpoint every 10 % of the requests: the query's counts stay fresh for a few events each. */
const PROGRESS_STEP = 10;

export function batchFollower(maxWaitMs: number) {
  // The window timer ends the follow first: the schedule-to-close bound is only a backstop.
  const { pollBatch } = proxyActivities<Activities>(retryAsPollOptions(maxWaitMs, { grace: false }));
  const waitWithHeartbeats = heartbeatingFollower(maxWaitMs);

  /** Resolves with the terminal observation; `onCheckpoint` sees every one before it. */
  return async function followBatch(
    batchId: string,
    polling: ParsedBatchPollingOptions,
    from: BatchObservation,
    onCheckpoint: (o: BatchObservation) => void,
    progressStep = PROGRESS_STEP,
  ): Promise<BatchObservation> {
    if (!patched(Patch.batchRetryAsPoll)) return waitWithHeartbeats(batchId, polling, from, onCheckpoint, progressStep);
    let since = from;
    for (;;) {
      const checkpoint = await summarized(
        pollBatch,
        `poll batch ${batchId}`,
      )({ batchId, polling, since, progressStep });
      onCheckpoint(checkpoint.observation);
      if (checkpoint.terminal) return checkpoint.observation;
      since = checkpoint.observation;
    }
  };
}

/** The follow before retry-as-poll, kept for runs that were following their batch in it when the worker was upgraded. */
function heartbeatingFollower(maxWaitMs: number) {
  const { waitForBatch } = proxyActivities<Activities>({
    scheduleToCloseTimeout: maxWaitMs,
    // A lost worker is replaced within half a minute; the next attempt resumes from the heartbeat.
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    // The window timer or a cancel stops polling before anything else happens.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  return async function followBatch(
    batchId: string,
    polling: ParsedBatchPollingOptions,
    from: BatchObservation,
    onCheckpoint: (o: BatchObservation) => void,
    progressStep: number,
  ): Promise<BatchObservation> {
    let resume = from;
    for (;;) {
      const checkpoint = await summarized(
        waitForBatch,
        `wait for batch ${batchId}`,
      )({ batchId, polling, resume, progressStep });
      onCheckpoint(checkpoint.observation);
      if (checkpoint.terminal) return checkpoint.observation;
      resume = checkpoint.observation;
    }
  };
}
