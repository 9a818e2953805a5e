// The workflow bundle's entry. The type below makes the compiler name an operation missing here.
import type { OperationName } from '@platform-ops/client';

export * from './autoRenew/workflows';
export * from './batchJob/workflows';
export * from './billingReport/workflows';
export * from './budgetGatedJob/workflows';
export * from './budgetLedger/workflows';
export * from './evaluateDecision/workflows';
export * from './instances/workflows';
export * from './mediaGeneration/workflows';
export * from './serverlessEndpoint/workflows';

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
  serverlessEndpoint: typeof import('./serverlessEndpoint/workflows');
}>;
