// The batch emulator: files and batches APIs of the OpenAI-compatible base (see README.md here).
import type { FastifyInstance } from 'fastify';
import type { BatchRouteDeps } from './deps';
import { batchRoutesPlugin } from './routes';

export type { BatchRouteDeps } from './deps';
export type { BatchEnv } from '../types';
export { BatchStore } from './store';
export type { BatchList } from './store';
export type { BatchObject } from './batch-object';
export type { FileObjectBody } from './files';
export { BatchSettingsUpdate } from './settings';
export { batchPrice } from './pricing';

/**
 * Registers the files and batches routes at `deps.paths.files` and `deps.paths.batches`, in an
 * encapsulated child scope with its own @fastify/multipart. The scope is loaded with the app
 * (`await app.ready()` / `listen()`), so root hooks added before then (auth setting
 * `request.caller`, fault injection, counters) apply to these routes too.
 */
export function registerBatchRoutes(app: FastifyInstance, deps: BatchRouteDeps): void {
  void app.register(batchRoutesPlugin, deps);
}
