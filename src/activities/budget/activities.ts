// The budget-gated job activities: pricing, the ledger's platform check and holder check, and the
// job's side of the ledger (reserve, wait, release).
import type { ActivityDeps } from '..';
import { createLedgerActivities } from './ledger';
import { createLedgerClientActivities } from './ledger-client';
import { createPriceActivities } from './price';

export type { CheckMemberBudgetInput, CheckMemberBudgetResult } from './ledger';
export type { AwaitBudgetAdmissionInput, AwaitBudgetAdmissionResult } from './ledger-client';
export { priceQuantities, type PriceBudgetJobInput, type PriceBudgetJobResult } from './price';

export function createActivities({ platform, temporal, prices }: ActivityDeps) {
  return {
    ...createPriceActivities(prices),
    ...createLedgerActivities(platform, temporal),
    ...createLedgerClientActivities(temporal),
  };
}
export type Activities = ReturnType<typeof createActivities>;
