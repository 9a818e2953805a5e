// The heartbeating wait before pollBatch (./poll.ts), kept for runs that were following their batch
// in it when the worker was upgraded. One long activity follows the batch through its states: the
// gaps grow from seconds to minutes, transient errors are absorbed between polls, and every poll's
// counts travel in the heartbeat. It returns to the workflow only at checkpoints - a status change,
// each `progressStep` percent of requests done, the end. The window is the workflow's timer, which
// cancels this activity.
import { Context } from '@temporalio/activity';
import type { BatchObservation, ParsedBatchPollingOptions } from '../../workflows/batch/contract';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { isTerminalBatchStatus } from '../../platform/schemas/batches';
import { toApplicationFailure } from '../failures';
import { snapshotOf } from './snapshot';

export interface WaitForBatchInput {
  batchId: string;
  polling: ParsedBatchPollingOptions;
  /** The last checkpoint: where this wait takes over. */
  resume?: BatchObservation;
  /** Report back each time this many percent more of the requests are done (0: status changes only). */
  progressStep: number;
  /** Transient poll failures in a row before giving up (the activity's retry policy takes over). */
  maxConsecutiveErrors?: number;
}

export interface BatchCheckpoint {
  observation: BatchObservation;
  terminal: boolean;
}

const HEARTBEAT_EVERY_MS = 1_000;

const doneShare = (o: BatchObservation | undefined, step: number) => {
  if (!o || step <= 0 || o.requestCounts.total === 0) return 0;
  return Math.floor(((o.requestCounts.completed + o.requestCounts.failed) * 100) / o.requestCounts.total / step);
};

export function createBatchFollowActivities(platform: PlatformClient) {
  return {
    async waitForBatch(input: WaitForBatchInput): Promise<BatchCheckpoint> {
      const ctx = Context.current();
      const resumed = (ctx.info.heartbeatDetails as BatchObservation | undefined) ?? input.resume;
      let current = resumed;
      let interval = resumed?.intervalMs ?? input.polling.initialIntervalMs;
      let errors = 0;
      const known = { status: input.resume?.status, step: doneShare(input.resume, input.progressStep) };
      const sleepUntil = async (at: number | undefined) => {
        const ms = (at ?? 0) - Date.now();
        if (ms > 0) await ctx.sleep(ms);
      };

      const heartbeats = setInterval(() => ctx.heartbeat(current), HEARTBEAT_EVERY_MS);
      try {
        await sleepUntil(resumed?.nextPollAt);
        for (;;) {
          let snapshot;
          try {
            snapshot = snapshotOf(await platform.getBatch(input.batchId, { signal: ctx.cancellationSignal }));
            errors = 0;
          } catch (err) {
            if (!(err instanceof PlatformError)) throw err;
            if (!err.retryable || ++errors >= (input.maxConsecutiveErrors ?? 30)) throw toApplicationFailure(err);
            await sleepUntil(Date.now() + Math.max(err.retryAfterMs ?? 0, Math.min(interval, 30_000)));
            continue;
          }
          const now = Date.now();
          current = {
            batchId: input.batchId,
            status: snapshot.status,
            requestCounts: snapshot.requestCounts,
            outputFileId: snapshot.outputFileId,
            errorFileId: snapshot.errorFileId,
            polls: (current?.polls ?? 0) + 1,
            observedAt: now,
          };
          if (isTerminalBatchStatus(snapshot.status)) {
            ctx.heartbeat(current);
            return { observation: current, terminal: true };
          }
          // The gap grows while nothing ends: seconds at first, minutes later.
          current = { ...current, intervalMs: interval, nextPollAt: now + interval };
          interval = Math.min(input.polling.maxIntervalMs, Math.round(interval * input.polling.backoffCoefficient));
          current = { ...current, intervalMs: interval };
          ctx.heartbeat(current);
          if (snapshot.status !== known.status || doneShare(current, input.progressStep) > known.step) {
            return { observation: current, terminal: false };
          }
          await sleepUntil(current.nextPollAt);
        }
      } finally {
        clearInterval(heartbeats);
      }
    },
  };
}
