// The batch emulator: files and batches APIs of the OpenAI-compatible base (see README.md here).
import type { FastifyInstance } from 'fastify';
import type { BatchRouteDeps } from './deps';
import { batchRoutesPlugin } from './routes';

export type { BatchRouteDeps } from './deps';
export type { BatchEnv } from '../types';
export { BatchStore, DEFAULT_LIST_LIMIT } from './store';
export type { BatchDebugView, BatchList, CreateBatchInput } from './store';
export type { BatchObject } from './batch-object';
export type { FileObjectBody } from './files';
export { BatchSettingsSchema, BatchSettingsUpdate, DEFAULT_BATCH_SETTINGS, METADATA_OVERRIDES } from './settings';
export type { BatchSettings, BatchPlan } from './settings';
export { REQUEST_FAIL_MARKER } from './requests';
export { BATCH_PRICE_FACTOR, DEFAULT_LLM_LIST_PRICE, LLM_LIST_PRICES, batchAmount, batchPrice } from './pricing';

/**
 * Registers the files and batches routes at `deps.paths.files` and `deps.paths.batches`, in an
 * encapsulated child scope with its own @fastify/multipart. The scope is loaded with the app
 * (`await app.ready()` / `listen()`), so root hooks added before then (auth setting
 * `request.caller`, fault injection, counters) apply to these routes too.
 */
export function registerBatchRoutes(app: FastifyInstance, deps: BatchRouteDeps): void {
  void app.register(batchRoutesPlugin, deps);
}
