// Cancelling a platform batch. A batch that has just finished on its own is not an error here: the
// caller wants it stopped, and it is.
import { Context } from '@temporalio/activity';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { snapshotOf, type BatchSnapshot } from './snapshot';

export function createBatchCancelActivities(platform: PlatformClient) {
  return {
    async cancelPlatformBatch(batchId: string): Promise<BatchSnapshot> {
      const signal = Context.current().cancellationSignal;
      try {
        return snapshotOf(await platform.cancelBatch(batchId, { signal }));
      } catch (err) {
        if (err instanceof PlatformError && err.reason === 'BATCH_ALREADY_FINISHED') {
          return snapshotOf(await platform.getBatch(batchId, { signal }));
        }
        throw err;
      }
    },
  };
}
