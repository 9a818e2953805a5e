// The media generation activities: submit, wait for the end (poll.ts), keep the outputs (../outputs.ts).
export {
  createMediaSubmitActivities,
  type SubmitMediaTaskInput,
  type SubmitMediaTaskResult,
  type SubmitFailureDetails,
} from './submit';
export { createMediaPollActivities, type CallbackFallback, type PollTaskInput, type TaskCheckpoint } from './poll';
