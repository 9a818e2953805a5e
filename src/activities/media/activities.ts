// The media generation activities: submit (./submit.ts), wait for the end (./poll.ts), keep the
// outputs (../outputs.ts).
import type { ActivityDeps } from '..';
import { createOutputActivities } from '../outputs';
import { createMediaPollActivities } from './poll';
import { createMediaSubmitActivities } from './submit';

export type { SubmitMediaTaskInput, SubmitMediaTaskResult, SubmitFailureDetails } from './submit';
export type { CallbackFallback, PollTaskInput, TaskCheckpoint } from './poll';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createMediaSubmitActivities(deps.platform, deps.pacing, deps.callbacks),
    ...createMediaPollActivities(deps.platform),
    ...createOutputActivities(deps.artifacts, deps.fetchPolicy),
  };
}
export type Activities = ReturnType<typeof createActivities>;
