// The batchJob activities: upload, create once, follow (poll.ts; follow.ts for runs started before it),
// cancel, keep the outputs; read a batch created elsewhere (attach).
export { createBatchCancelActivities } from './cancel';
export { createBatchCreateActivities, type CreateBatchOnceInput, type CreateBatchOnceResult } from './create';
export { createBatchGetActivities, type GetPlatformBatchResult } from './get';
export { createBatchFollowActivities, type BatchCheckpoint, type WaitForBatchInput } from './follow';
export { createBatchPollActivities, type PollBatchInput } from './poll';
export { createBatchOutputActivities, type KeepBatchOutputsInput, type KeepBatchOutputsResult } from './outputs';
export type { BatchSnapshot } from './snapshot';
export { createBatchUploadActivities, type UploadBatchInputInput, type UploadBatchInputResult } from './upload';
