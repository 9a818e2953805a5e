// @platform-ops/client: start the service's workflows from a backend and read what they give back
// (docs/backends.md; README.md beside this package's package.json). Its one entry is this list.
// The contracts: every workflow's schemas and types, and the names to query, signal and update it with; the
// platform's own requests and answers, its paths and its model registry, which the contracts build on.
export * from './contract';
export * from './failures';
export * from './validation';
export * from './reserved-keys';
export * from './operations';
export * from './contracts/autoRenew';
export * from './contracts/batchJob';
export * from './contracts/billingReport';
export * from './contracts/budgetGatedJob';
export * from './contracts/budgetLedger';
export * from './contracts/evaluateDecision';
export * from './contracts/instances';
export * from './contracts/mediaGeneration';
export * from './platform/account';
export * from './platform/batches';
export * from './platform/common';
export * from './platform/decision';
export * from './platform/gpu';
export * from './platform/image';
export * from './platform/media';
export * from './models';
export * from './paths';
// The payload encryption every process of the service uses: a backend's client needs the same keys (docs/encryption.md).
export * from './codec';
// The start, attach and handle of a run, checked and idempotent.
export * from './start';
