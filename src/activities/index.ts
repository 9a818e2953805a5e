// Every activity of the service: each operation's factory in src/activities/<operation>/activities.ts, imported
// here by name for every operation src/workflows/operations.ts lists. The platform client comes in by dependency
// injection, so tests and benchmarks point the same activities at the emulator.
import type { OperationName } from '../workflows/operations';
import type { ActivityDeps } from './deps';
import { createBatchActivities } from './batch/activities';
import { createBillingActivities } from './billing/activities';
import { createBudgetActivities } from './budget/activities';
import { createBudgetLedgerActivities } from './budgetLedger/activities';
import { createDecisionActivities } from './decision/activities';
import { createInstanceActivities } from './instances/activities';
import { createMediaActivities } from './media/activities';
import { withPlatformFailures } from './retries';

type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Each operation's activity factory, listed for every operation of src/workflows/operations.ts (the compiler names one
 * missing); `null` for an operation that only reuses others' activities (autoRenew runs the instances' ones).
 */
export const ACTIVITY_FACTORIES: { readonly [O in OperationName]: ((deps: ActivityDeps) => ActivityFunctions) | null } =
  {
    media: createMediaActivities,
    batch: createBatchActivities,
    instances: createInstanceActivities,
    decision: createDecisionActivities,
    budget: createBudgetActivities,
    budgetLedger: createBudgetLedgerActivities,
    billing: createBillingActivities,
    autoRenew: null,
  };

export function createActivities(deps: ActivityDeps): ActivityFunctions {
  const all: ActivityFunctions = {};
  for (const factory of Object.values(ACTIVITY_FACTORIES)) if (factory) Object.assign(all, factory(deps));
  return withPlatformFailures(all);
}
