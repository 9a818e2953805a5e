// The batchJob activities: upload, create once, follow, cancel, keep the outputs.
export { createBatchCancelActivities } from './cancel';
export { createBatchCreateActivities, type CreateBatchOnceInput, type CreateBatchOnceResult } from './create';
export { createBatchFollowActivities, type BatchCheckpoint, type WaitForBatchInput } from './follow';
export { createBatchOutputActivities, type KeepBatchOutputsInput, type KeepBatchOutputsResult } from './outputs';
export type { BatchSnapshot } from './snapshot';
export { createBatchUploadActivities, type UploadBatchInputInput, type UploadBatchInputResult } from './upload';
