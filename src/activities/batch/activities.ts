// The batchJob activities: upload, create once, follow (./poll.ts), cancel, keep the outputs; read a
// batch created elsewhere (attach).
import type { ActivityDeps } from '..';
import { createBatchCancelActivities } from './cancel';
import { createBatchCreateActivities } from './create';
import { createBatchGetActivities } from './get';
import { createBatchOutputActivities } from './outputs';
import { createBatchPollActivities } from './poll';
import { createBatchUploadActivities } from './upload';

export type { CreateBatchOnceInput, CreateBatchOnceResult } from './create';
export type { GetPlatformBatchResult } from './get';
export type { BatchCheckpoint, PollBatchInput } from './poll';
export type { KeepBatchOutputsInput, KeepBatchOutputsResult } from './outputs';
export type { BatchSnapshot } from './snapshot';
export type { UploadBatchInputInput, UploadBatchInputResult } from './upload';

export function createActivities({ platform, fetchPolicy, artifacts }: ActivityDeps) {
  return {
    ...createBatchUploadActivities(platform, fetchPolicy),
    ...createBatchCreateActivities(platform),
    ...createBatchPollActivities(platform),
    ...createBatchGetActivities(platform),
    ...createBatchCancelActivities(platform),
    ...createBatchOutputActivities(platform, artifacts),
  };
}
export type Activities = ReturnType<typeof createActivities>;
