// The workflow bundle's entry: every operation's workflows, as the worker registers them by their exported names.
// The type below must name a module for every operation of src/workflows/operations.ts (the compiler says which is
// missing), and test/operations.test.ts checks that this file exports every workflow type.
import type { OperationName } from './operations';

export * from './autoRenew/workflows';
export * from './batch/workflows';
export * from './billing/workflows';
export * from './budget/workflows';
export * from './budgetLedger/workflows';
export * from './decision/workflows';
export * from './instances/workflows';
export * from './media/workflows';

type EveryOperation<T extends Record<OperationName, unknown>> = T;
export type WorkflowModules = EveryOperation<{
  autoRenew: typeof import('./autoRenew/workflows');
  batch: typeof import('./batch/workflows');
  billing: typeof import('./billing/workflows');
  budget: typeof import('./budget/workflows');
  budgetLedger: typeof import('./budgetLedger/workflows');
  decision: typeof import('./decision/workflows');
  instances: typeof import('./instances/workflows');
  media: typeof import('./media/workflows');
}>;
