// The typed client for backends (`import … from 'platform-ops/client'`): start helpers that check
// the input before sending and start at most once per idempotency key, the names to query and signal
// with, and the input and result types. See docs/backends.md.
export * from './workflows';
export { startWorkflow, type StartOptions, type Started } from './start';
export { IdempotencyKey, IdempotencyKeyReusedError, idempotentWorkflowId, inputFingerprint } from './idempotency';
export { workflowSummary } from './summary';
export * from '../api';
// With tracing: `new Client({ connection, interceptors: tracingClientInterceptors() })` (docs/observability.md).
export { tracingClientInterceptors } from '../tracing/client';
