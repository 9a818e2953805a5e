import type { OperationName } from '@platform-ops/client';
import type { ActivityDeps } from './activities-deps';
import { createBatchActivities } from './batchJob/activities';
import { createBillingActivities } from './billingReport/activities';
import { createBudgetActivities } from './budgetGatedJob/activities';
import { createBudgetLedgerActivities } from './budgetLedger/activities';
import { createDecisionActivities } from './evaluateDecision/activities';
import { createInstanceActivities } from './instances/activities';
import { createMediaActivities } from './mediaGeneration/activities';
import { createServerlessEndpointActivities } from './serverlessEndpoint/activities';
import { withPlatformFailures } from '../activities/retries';

type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;

// `null` for an operation that only reuses others' activities (autoRenew runs the instances' ones).
export const ACTIVITY_FACTORIES: { readonly [O in OperationName]: ((deps: ActivityDeps) => ActivityFunctions) | null } =
  {
    mediaGeneration: createMediaActivities,
    batchJob: createBatchActivities,
    instances: createInstanceActivities,
    evaluateDecision: createDecisionActivities,
    budgetGatedJob: createBudgetActivities,
    budgetLedger: createBudgetLedgerActivities,
    billingReport: createBillingActivities,
    autoRenew: null,
    serverlessEndpoint: createServerlessEndpointActivities,
  };

export function createActivities(deps: ActivityDeps): ActivityFunctions {
  const all: ActivityFunctions = {};
  for (const factory of Object.values(ACTIVITY_FACTORIES)) if (factory) Object.assign(all, factory(deps));
  return withPlatformFailures(all);
}
