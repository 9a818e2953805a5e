// The workflow bundle's entry: every operation's workflows, as the worker registers them by their exported names.
// The type below must name a module for every operation of packages/client/src/operations.ts (the compiler says which is
// missing), and test/operations.test.ts checks that this file exports every workflow type.
import type { OperationName } from '@platform-ops/client';

export * from './autoRenew/workflows';
export * from './batchJob/workflows';
export * from './billingReport/workflows';
export * from './budgetGatedJob/workflows';
export * from './budgetLedger/workflows';
export * from './evaluateDecision/workflows';
export * from './instances/workflows';
export * from './mediaGeneration/workflows';

type EveryOperation<T extends Record<OperationName, unknown>> = T;
export type WorkflowModules = EveryOperation<{
  autoRenew: typeof import('./autoRenew/workflows');
  batchJob: typeof import('./batchJob/workflows');
  billingReport: typeof import('./billingReport/workflows');
  budgetGatedJob: typeof import('./budgetGatedJob/workflows');
  budgetLedger: typeof import('./budgetLedger/workflows');
  evaluateDecision: typeof import('./evaluateDecision/workflows');
  instances: typeof import('./instances/workflows');
  mediaGeneration: typeof import('./mediaGeneration/workflows');
}>;
