// Creating the batch at most once. The platform takes no idempotency key, so the batch carries the
// workflow id in its metadata: a retried attempt (after a timeout, a reset, a 5xx, a lost worker)
// looks for a batch on the same input file with that tag until no create an earlier attempt sent can
// still land (../in-flight.ts: twice the client's timeout after it was sent), and creates only if
// there is none. A create the platform acts on later still is the residual risk.
import { Context, log } from '@temporalio/activity';
import type { PlatformClient } from '../../platform-client/client';
import type { BatchEndpoint } from '../../platform/schemas/batches';
import { findAfterEarlierAttempts, inFlightSettleMs, sendCostly } from '../in-flight';
import { snapshotOf, type BatchSnapshot } from './snapshot';

/** The metadata key that ties a platform batch to the workflow that created it. */
export const WORKFLOW_ID_METADATA_KEY = 'platform_ops_workflow_id';
/** How far back the lookup reads the batch list (newest first). */
const LOOKUP_LIMIT = 500;

export interface CreateBatchOnceInput {
  workflowId: string;
  inputFileId: string;
  endpoint: BatchEndpoint;
  metadata?: Record<string, string>;
}

export interface CreateBatchOnceResult {
  batch: BatchSnapshot;
  /** True when an earlier attempt had created it already (found by the lookup). */
  found: boolean;
  attempt: number;
  /** Real epoch ms of the answer. */
  at: number;
  /**
   * Our clock's latest moment the batch cannot have been created before: when this attempt sent the
   * create, or, for a batch an earlier attempt made, when the first attempt was scheduled. The window
   * is timed from here, on the workers' clock (the platform's may differ, an emulator's runs faster).
   */
  windowStartAt: number;
}

export function createBatchCreateActivities(platform: PlatformClient) {
  async function findExisting(input: CreateBatchOnceInput, signal: AbortSignal): Promise<BatchSnapshot | undefined> {
    let seen = 0;
    for await (const batch of platform.iterateBatches({ limit: 100 }, { signal })) {
      if (
        batch.input_file_id === input.inputFileId &&
        batch.metadata?.[WORKFLOW_ID_METADATA_KEY] === input.workflowId
      ) {
        return snapshotOf(batch);
      }
      if (++seen >= LOOKUP_LIMIT) break;
    }
    return undefined;
  }

  return {
    async createBatchOnce(input: CreateBatchOnceInput): Promise<CreateBatchOnceResult> {
      const ctx = Context.current();
      const signal = ctx.cancellationSignal;
      const attempt = ctx.info.attempt;
      const sentAt = Date.now();
      // A first attempt, or a retry after clear refusals only, has nothing to look for.
      const existing = await findAfterEarlierAttempts(ctx, inFlightSettleMs(platform.config.timeoutMs), () =>
        findExisting(input, signal),
      );
      if (existing) {
        log.info('Batch already created by an earlier attempt', { batchId: existing.id, attempt });
        return {
          batch: existing,
          found: true,
          attempt,
          at: Date.now(),
          windowStartAt: ctx.info.scheduledTimestampMs,
        };
      }
      const batch = await sendCostly(ctx, () =>
        platform.createBatch(
          {
            input_file_id: input.inputFileId,
            endpoint: input.endpoint,
            completion_window: '48h',
            metadata: { ...input.metadata, [WORKFLOW_ID_METADATA_KEY]: input.workflowId },
          },
          { signal },
        ),
      );
      log.info('Created batch', { batchId: batch.id, inputFileId: input.inputFileId, attempt });
      return { batch: snapshotOf(batch), found: false, attempt, at: Date.now(), windowStartAt: sentAt };
    },
  };
}
