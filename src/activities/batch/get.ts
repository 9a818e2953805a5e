// Reading a batch created elsewhere, for batchJob's attach form: where it stands when the run takes
// it over. A read: retried through outages by the caller's policy; an unknown id (404) is final.
import { Context } from '@temporalio/activity';
import type { PlatformClient } from '../../platform-client/client';
import { snapshotOf, type BatchSnapshot } from './snapshot';

export interface GetPlatformBatchResult {
  batch: BatchSnapshot;
  /** Real epoch ms of the answer. */
  at: number;
}

export function createBatchGetActivities(platform: PlatformClient) {
  return {
    async getPlatformBatch(batchId: string): Promise<GetPlatformBatchResult> {
      const batch = snapshotOf(await platform.getBatch(batchId, { signal: Context.current().cancellationSignal }));
      return { batch, at: Date.now() };
    },
  };
}
