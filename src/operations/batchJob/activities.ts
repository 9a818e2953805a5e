import { Context, log } from '@temporalio/activity';
import type { ActivityDeps } from '../activities-deps';
import {
  type Batch,
  type BatchEndpoint,
  type BatchObservation,
  isTerminalBatchStatus,
  type ParsedBatchPollingOptions,
  type Resumed,
} from '@platform-ops/client';
import { PlatformError } from '../../platform-client/errors';
import { answerPaidCall, madeByEarlierRun, resumedFrom, type AfterReset } from '../../activities/earlier-runs';
import {
  awaitPollTurn,
  errorBackoffMs,
  findAfterEarlierAttempts,
  pollAgainIn,
  pollRead,
  sendCostly,
} from '../../activities/retries';
import { createBatchOutputActivities } from './activities-outputs';
import { createBatchUploadActivities } from './activities-upload';

function epochMs(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return value < 1e12 ? value * 1000 : value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function snapshotOf(batch: Batch) {
  const { total, completed, failed } = batch.request_counts;
  return {
    id: batch.id,
    status: batch.status,
    inputFileId: batch.input_file_id,
    createdAtMs: epochMs(batch.created_at) ?? Date.now(),
    requestCounts: { total, completed, failed },
    outputFileId: batch.output_file_id ?? undefined,
    errorFileId: batch.error_file_id ?? undefined,
  };
}
type BatchSnapshot = ReturnType<typeof snapshotOf>;

export const WORKFLOW_ID_METADATA_KEY = 'platform_ops_workflow_id';
const LOOKUP_LIMIT = 500;

interface CreateBatchOnceInput {
  workflowId: string;
  inputFileId: string;
  endpoint: BatchEndpoint;
  metadata?: Record<string, string>;
}

export interface CreateBatchOnceResult {
  batch: BatchSnapshot;
  found: boolean;
  attempt: number;
  at: number;
  // The window is timed on the workers' clock (the platform's may differ, an emulator's runs faster).
  windowStartAt: number;
  resumed?: Resumed;
}

export interface BatchCheckpoint {
  observation: BatchObservation;
  terminal: boolean;
}

export interface PollBatchInput {
  batchId: string;
  polling: ParsedBatchPollingOptions;
  since: BatchObservation;
  /** Percent of the requests done between checkpoints (0: status changes only). */
  progressStep: number;
}

const doneStep = (o: BatchObservation, step: number): number => {
  if (step <= 0 || o.requestCounts.total === 0) return 0;
  return Math.floor(((o.requestCounts.completed + o.requestCounts.failed) * 100) / o.requestCounts.total / step);
};

/** The gap after the n-th poll since a checkpoint: grown n - 1 times by the coefficient, rounded at each step. */
export function batchGapMs(firstMs: number, n: number, polling: ParsedBatchPollingOptions): number {
  let gap = Math.min(polling.maxIntervalMs, firstMs);
  for (let i = 1; i < n && gap < polling.maxIntervalMs; i++) {
    gap = Math.min(polling.maxIntervalMs, Math.round(gap * polling.backoffCoefficient));
  }
  return gap;
}

export function createBatchActivities({ platform, fetchPolicy, artifacts, temporal }: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;

  async function findExisting(input: CreateBatchOnceInput): Promise<BatchSnapshot | undefined> {
    let seen = 0;
    for await (const batch of platform.iterateBatches({ limit: 100 }, { signal: signal() })) {
      const ours = batch.metadata?.[WORKFLOW_ID_METADATA_KEY] === input.workflowId;
      if (ours && batch.input_file_id === input.inputFileId) return snapshotOf(batch);
      if (++seen >= LOOKUP_LIMIT) break;
    }
    return undefined;
  }

  return {
    ...createBatchUploadActivities(platform, fetchPolicy, temporal),

    // The platform takes no idempotency key, so the batch carries the workflow id in its metadata: a retried attempt
    // looks for a batch on the same input file with that tag until no create an earlier attempt sent can still land.
    async createBatchOnce({ afterReset, ...input }: CreateBatchOnceInput & AfterReset): Promise<CreateBatchOnceResult> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const sentAt = Date.now();
      const earlier = afterReset
        ? await madeByEarlierRun(temporal, ctx, {
            fromAnswer: (result: CreateBatchOnceResult) => result.batch,
            lookUp: (made: CreateBatchOnceInput) => findExisting(made),
          })
        : undefined;
      if (earlier) {
        const { made } = earlier;
        const windowStartAt = earlier.earlier.result?.windowStartAt ?? Math.min(made.createdAtMs, sentAt);
        const resumed = resumedFrom(ctx, earlier.earlier, `batch ${made.id}`);
        return answerPaidCall(temporal, ctx, {
          batch: made,
          found: true,
          attempt,
          at: Date.now(),
          windowStartAt,
          resumed,
        });
      }
      const existing = await findAfterEarlierAttempts(ctx, platform, () => findExisting(input));
      if (existing) {
        log.info('Batch already created by an earlier attempt', { batchId: existing.id, attempt });
        return { batch: existing, found: true, attempt, at: Date.now(), windowStartAt: ctx.info.scheduledTimestampMs };
      }
      const metadata = { ...input.metadata, [WORKFLOW_ID_METADATA_KEY]: input.workflowId };
      const { inputFileId, endpoint } = input;
      const batch = await sendCostly(ctx, () =>
        platform.createBatch(
          { input_file_id: inputFileId, endpoint, completion_window: '48h', metadata },
          { signal: signal() },
        ),
      );
      log.info('Created batch', { batchId: batch.id, inputFileId, attempt });
      const at = Date.now();
      return answerPaidCall(temporal, ctx, {
        batch: snapshotOf(batch),
        found: false,
        attempt,
        at,
        windowStartAt: sentAt,
      });
    },

    async getPlatformBatch(batchId: string): Promise<Pick<CreateBatchOnceResult, 'batch' | 'at'>> {
      return { batch: snapshotOf(await platform.getBatch(batchId, { signal: signal() })), at: Date.now() };
    },

    // A batch that has just finished on its own is not an error: the caller wants it stopped, and it is.
    async cancelPlatformBatch(batchId: string): Promise<BatchSnapshot> {
      try {
        return snapshotOf(await platform.cancelBatch(batchId, { signal: signal() }));
      } catch (err) {
        if (!(err instanceof PlatformError) || err.reason !== 'BATCH_ALREADY_FINISHED') throw err;
        return snapshotOf(await platform.getBatch(batchId, { signal: signal() }));
      }
    },

    // Only a status change, a progress step or the end is a checkpoint, so the history stays small over 48 hours.
    async pollBatch(input: PollBatchInput): Promise<BatchCheckpoint> {
      const ctx = Context.current();
      const { since, polling, batchId } = input;
      const n = await awaitPollTurn(ctx, batchId, since);
      const snapshot = snapshotOf(
        await pollRead(
          ctx,
          platform,
          (opts) => platform.getBatch(batchId, opts),
          (err) => errorBackoffMs(err, ctx.info.attempt, polling.initialIntervalMs, polling.maxIntervalMs),
        ),
      );
      const now = Date.now();
      const { status, requestCounts: c } = snapshot;
      const observation: BatchObservation = {
        batchId,
        status,
        requestCounts: c,
        outputFileId: snapshot.outputFileId,
        errorFileId: snapshot.errorFileId,
        polls: since.polls + n,
        observedAt: now,
      };
      if (isTerminalBatchStatus(status)) return { observation, terminal: true };
      const gap = batchGapMs(since.intervalMs ?? polling.initialIntervalMs, n, polling);
      const next: BatchObservation = {
        ...observation,
        nextPollAt: now + gap,
        intervalMs: Math.min(polling.maxIntervalMs, Math.round(gap * polling.backoffCoefficient)),
      };
      if (status !== since.status || doneStep(next, input.progressStep) > doneStep(since, input.progressStep)) {
        return { observation: next, terminal: false };
      }
      const done = `${c.completed + c.failed}/${c.total} done (${next.polls} polls)`;
      throw pollAgainIn(gap, `${batchId} is ${status}, ${done}: next poll in ${gap} ms`, next);
    },

    ...createBatchOutputActivities(platform, artifacts),
  };
}
export type Activities = ReturnType<typeof createBatchActivities>;
