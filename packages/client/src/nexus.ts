// Every workflow a caller starts, as one Nexus service: a Temporal application in another namespace calls it from its
// workflows (createNexusServiceClient) with the service and the endpoint's name, and no other part of this package.
import * as nexus from 'nexus-rpc';
import { STARTABLE_WORKFLOW_TYPES, type InputOf, type ResultOf, type StartableWorkflowType } from './operations';
import type { PriorityClass } from './contract';

/** The endpoint `npm start` and `npm run cluster` create (docs/backends.md#temporal-applications-nexus). */
export const NEXUS_ENDPOINT = 'platform-ops';

export const NEXUS_SERVICE_NAME = 'platformOps';

/**
 * What an operation takes: the workflow's input, and how the run is started. The same key with the same input
 * answers with the key's run (running, or closed with its result); with another input it fails, CONFLICT. Without a
 * key, the Nexus request id names the run, so a start the caller's server repeats finds the first.
 */
export interface NexusStart<T extends StartableWorkflowType> {
  input: InputOf<T>;
  /** As startWorkflow's (packages/client/src/start.ts), and so are the rest. */
  idempotencyKey?: string;
  retryFailedRuns?: boolean;
  summary?: string;
  priority?: PriorityClass;
  fairnessKey?: string;
  fairnessWeight?: number;
}

type Operations = {
  [T in StartableWorkflowType]: nexus.PartialOperation<NexusStart<T>, ResultOf<T>>;
};

export const platformOpsNexusService = nexus.service(
  NEXUS_SERVICE_NAME,
  Object.fromEntries(STARTABLE_WORKFLOW_TYPES.map((type) => [type, nexus.operation({ name: type })])) as Operations,
);
