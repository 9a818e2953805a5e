// The batchJob activities: upload, create once, follow (poll.ts), cancel, keep the outputs; read a
// batch created elsewhere (attach).
export { createBatchCancelActivities } from './cancel';
export { createBatchCreateActivities, type CreateBatchOnceInput, type CreateBatchOnceResult } from './create';
export { createBatchGetActivities, type GetPlatformBatchResult } from './get';
export { createBatchPollActivities, type BatchCheckpoint, type PollBatchInput } from './poll';
export { createBatchOutputActivities, type KeepBatchOutputsInput, type KeepBatchOutputsResult } from './outputs';
export type { BatchSnapshot } from './snapshot';
export { createBatchUploadActivities, type UploadBatchInputInput, type UploadBatchInputResult } from './upload';
