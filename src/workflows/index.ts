// Every workflow the worker registers. The exported names are the workflow types (src/api/names.ts).
export { renewInstance, restartInstance } from './instances';
export { createInstance, deleteInstance, startInstance, stopInstance } from './instance-lifecycle';
export { autoRenew } from './auto-renew';
export { evaluateDecision } from './decision';
export { mediaGeneration } from './media/generation';
export { batchJob } from './batch/job';
export { billingReport } from './billing/report';
export { budgetGatedJob } from './budget/job';
export { budgetLedger } from './budget/ledger';
