// Creating the batch at most once. The platform takes no idempotency key, so the batch carries the
// workflow id in its metadata: a retried attempt (after a timeout, a reset, a 5xx, a lost worker)
// first looks for a batch on the same input file with that tag, and creates only if there is none.
import { Context, log } from '@temporalio/activity';
import type { PlatformClient } from '../../platform/client';
import type { BatchEndpoint } from '../../platform/schemas/batches';
import { snapshotOf, type BatchSnapshot } from './snapshot';

/** The metadata key that ties a platform batch to the workflow that created it. */
export const WORKFLOW_ID_METADATA_KEY = 'platform_ops_workflow_id';
/** How far back the lookup reads the batch list (newest first). */
const LOOKUP_LIMIT = 500;
/**
 * Before looking, a retry lets a create that may still be in flight (sent by the attempt that gave up)
 * land, so the lookup sees it. A create that lands later still could be duplicated: the residual risk.
 */
const SETTLE_MS = 2_000;

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
      // The first attempt cannot have been preceded by one that reached the platform.
      if (attempt > 1) {
        await ctx.sleep(SETTLE_MS);
        const existing = await findExisting(input, signal);
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
      }
      const batch = await platform.createBatch(
        {
          input_file_id: input.inputFileId,
          endpoint: input.endpoint,
          completion_window: '48h',
          metadata: { ...input.metadata, [WORKFLOW_ID_METADATA_KEY]: input.workflowId },
        },
        { signal },
      );
      log.info('Created batch', { batchId: batch.id, inputFileId: input.inputFileId, attempt });
      return { batch: snapshotOf(batch), found: false, attempt, at: Date.now(), windowStartAt: sentAt };
    },
  };
}
