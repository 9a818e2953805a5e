// Following a batch by retry-as-poll (../poll-again.ts): each attempt of pollBatch makes one
// get-batch request. Nothing new: the attempt fails as StillRunning with the next gap, and the server
// runs the next attempt then. A status change, each `progressStep` percent of requests done, or the
// end: the attempt returns a checkpoint, so the workflow's history stays small over the 48-hour window
// whatever the number of polls. The window itself is the workflow's timer, which cancels this activity.
//
// Why not one long heartbeating activity: it would hold an activity slot and heartbeat for up to 48
// hours; here a batch costs nothing between polls, and its polls are minutes apart once the batch has
// run a while. The gaps grow from the checkpoint's intervalMs by backoffCoefficient with each attempt,
// up to maxIntervalMs; a gap under about a second (RETRY_TIMER_LEAD_MS) lasts about a second, the
// server's timers being no finer.
import { Context } from '@temporalio/activity';
import type { BatchObservation, ParsedBatchPollingOptions } from '../../workflows/batch/contract';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { isTerminalBatchStatus } from '../../platform/schemas/batches';
import { toApplicationFailure } from '../failures';
import { awaitPollTurn, errorBackoffMs, POLL_TIMEOUT_MS, pollAgainIn, retryDelayFor } from '../poll-again';
import { snapshotOf } from './snapshot';

export interface BatchCheckpoint {
  observation: BatchObservation;
  terminal: boolean;
}

export interface PollBatchInput {
  batchId: string;
  polling: ParsedBatchPollingOptions;
  /** The last checkpoint: its poll count, when the next poll is due, and the gap after that poll. */
  since: BatchObservation;
  /** Report back each time this many percent more of the requests are done (0: status changes only). */
  progressStep: number;
}

/** The step of requests done (completed or failed) an observation is at, in `step` percent. */
const doneStep = (o: BatchObservation, step: number): number => {
  if (step <= 0 || o.requestCounts.total === 0) return 0;
  return Math.floor(((o.requestCounts.completed + o.requestCounts.failed) * 100) / o.requestCounts.total / step);
};

/**
 * The gap after the n-th poll since a checkpoint whose next gap is `firstMs`: grown n - 1 times by
 * the coefficient (rounded at each step), up to the maximum.
 */
export function batchGapMs(firstMs: number, n: number, polling: ParsedBatchPollingOptions): number {
  let gap = Math.min(polling.maxIntervalMs, firstMs);
  for (let i = 1; i < n && gap < polling.maxIntervalMs; i++) {
    gap = Math.min(polling.maxIntervalMs, Math.round(gap * polling.backoffCoefficient));
  }
  return gap;
}

export function createBatchPollActivities(platform: PlatformClient) {
  return {
    async pollBatch(input: PollBatchInput): Promise<BatchCheckpoint> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const { since, polling, batchId } = input;
      // This attempt's poll is the n-th since the checkpoint; every request counts, failed ones too.
      const n = await awaitPollTurn(ctx, batchId, since);

      let snapshot;
      try {
        const batch = await platform.getBatch(batchId, {
          signal: ctx.cancellationSignal,
          timeoutMs: Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs),
        });
        snapshot = snapshotOf(batch);
      } catch (err) {
        // A poll is a read: a passing fault is retried, however long the outage, until the window ends.
        if (!(err instanceof PlatformError) || !err.retryable) throw err;
        // Jittered, yet never longer apart than the polls themselves (unless the platform asks).
        const delay = Math.min(
          errorBackoffMs(err, attempt, polling.initialIntervalMs),
          Math.max(polling.maxIntervalMs, err.retryAfterMs ?? 0),
        );
        throw toApplicationFailure(err, { nextRetryDelayMs: retryDelayFor(delay) });
      }

      const now = Date.now();
      const observation: BatchObservation = {
        batchId,
        status: snapshot.status,
        requestCounts: snapshot.requestCounts,
        outputFileId: snapshot.outputFileId,
        errorFileId: snapshot.errorFileId,
        polls: since.polls + n,
        observedAt: now,
      };
      if (isTerminalBatchStatus(snapshot.status)) return { observation, terminal: true };

      // The gap grows while nothing ends: seconds at first, minutes later.
      const gap = batchGapMs(since.intervalMs ?? polling.initialIntervalMs, n, polling);
      const next: BatchObservation = {
        ...observation,
        nextPollAt: now + gap,
        intervalMs: Math.min(polling.maxIntervalMs, Math.round(gap * polling.backoffCoefficient)),
      };
      if (
        snapshot.status !== since.status ||
        doneStep(next, input.progressStep) > doneStep(since, input.progressStep)
      ) {
        return { observation: next, terminal: false };
      }
      const c = snapshot.requestCounts;
      throw pollAgainIn(
        gap,
        `${batchId} is ${snapshot.status}, ${c.completed + c.failed}/${c.total} done (${next.polls} polls): ` +
          `next poll in ${gap} ms`,
        next,
      );
    },
  };
}
