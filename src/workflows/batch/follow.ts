// Following the platform batch until it ends. The poll activity runs again on its own after each poll
// (retry-as-poll, src/activities/batch/poll.ts) and comes back only at checkpoints, so this loop
// runs a handful of times however long the batch takes, and a waiting batch holds nothing on the
// worker. The window is not the activity's: the workflow's timer cancels the follow (./job.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { BatchObservation, ParsedBatchPollingOptions } from './contract';
import type { Activities } from '../../activities/batch/activities';
import { retryAsPollOptions } from '../retry-policies';
import { summarized } from '../activity-summary';

/** A checkpoint every 10 % of the requests: the query's counts stay fresh for a few events each. */
const PROGRESS_STEP = 10;

export function batchFollower(maxWaitMs: number) {
  // The window timer ends the follow first: the schedule-to-close bound is only a backstop.
  const { pollBatch } = proxyActivities<Activities>(retryAsPollOptions(maxWaitMs, { grace: false }));

  /** Resolves with the terminal observation; `onCheckpoint` sees every one before it. */
  return async function followBatch(
    batchId: string,
    polling: ParsedBatchPollingOptions,
    from: BatchObservation,
    onCheckpoint: (o: BatchObservation) => void,
    progressStep = PROGRESS_STEP,
  ): Promise<BatchObservation> {
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
