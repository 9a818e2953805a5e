// Every activity of the service. The platform client comes in by dependency injection, so tests and
// benchmarks point the same activities at the emulator.
import type { PlatformClient } from '../platform/client';
import { createDecisionActivities } from './decision';
import { withPlatformFailures } from './failures';
import { createInstanceActivities } from './instances';

export interface ActivityDeps {
  platform: PlatformClient;
}

export function createActivities(deps: ActivityDeps) {
  return withPlatformFailures({
    ...createInstanceActivities(deps.platform),
    ...createDecisionActivities(deps.platform),
  });
}

export type Activities = ReturnType<typeof createActivities>;
export type { InstanceSnapshot, WaitForInstanceStatusResult } from './instances';
export type { EvaluateQuestionInput } from './decision';
