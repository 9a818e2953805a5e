// The budget-gated job activities: pricing, the ledger's platform check and holder check, and the
// job's side of the ledger (reserve, wait, release).
export { createLedgerActivities, type CheckMemberBudgetInput, type CheckMemberBudgetResult } from './ledger';
export {
  createLedgerClientActivities,
  type AwaitBudgetAdmissionInput,
  type AwaitBudgetAdmissionResult,
} from './ledger-client';
export { createPriceActivities, priceQuantities, type PriceBudgetJobInput, type PriceBudgetJobResult } from './price';
