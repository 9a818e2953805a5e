// The media generation activities: submit, wait for the end, (outputs: ../outputs.ts).
export {
  createMediaSubmitActivities,
  type SubmitMediaTaskInput,
  type SubmitMediaTaskResult,
  type SubmitFailureDetails,
} from './submit';
export { createMediaWaitActivities, type TaskCheckpoint, type WaitForTaskInput } from './wait';
