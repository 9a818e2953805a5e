// The contract between the emulator's server and the batch emulator in this folder: what the server
// hands to registerBatchRoutes (owned by the server side; the rest of this folder by the batch side).
import type { PlatformPaths } from '@platform-ops/client';
import type { BatchEnv } from '../types';
import type { BatchStore } from './store';
export interface BatchRouteDeps {
  env: BatchEnv;
  store: BatchStore;
  paths: PlatformPaths;
}
