// The contract between the emulator's server and the batch emulator in this folder: what the server
// hands to registerBatchRoutes (owned by the server side; the rest of this folder by the batch side).
import type { PlatformPaths } from '../../../../src/platform/paths';
import type { ChargeInput } from '../types';
export interface BatchEnv {
  /** Emulated Unix ms. */
  now(): number;
  newId(prefix: string): string;
  /** Deducts from the member's budget and records a bill line. */
  charge(input: ChargeInput): void;
}
export interface BatchRouteDeps {
  env: BatchEnv;
  store: import('./store').BatchStore;
  paths: PlatformPaths;
}
