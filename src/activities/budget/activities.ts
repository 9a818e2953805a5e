// The budget-gated job activities: pricing, and the job's side of its member's ledger (reserve, wait,
// release). The ledger's own are in ../budgetLedger/activities.ts.
import type { ActivityDeps } from '..';
import { createLedgerClientActivities } from './ledger-client';
import { createPriceActivities } from './price';

export type { AwaitBudgetAdmissionInput, AwaitBudgetAdmissionResult } from './ledger-client';
export { priceQuantities, type PriceBudgetJobInput, type PriceBudgetJobResult } from './price';

export function createActivities({ temporal, prices }: ActivityDeps) {
  return {
    ...createPriceActivities(prices),
    ...createLedgerClientActivities(temporal),
  };
}
export type Activities = ReturnType<typeof createActivities>;
