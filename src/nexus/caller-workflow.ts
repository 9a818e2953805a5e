// A caller's workflow, as another team would write it in its own namespace: it imports the service and the endpoint's
// name, starts one operation and waits for its result. Cancelling this workflow cancels the operation, and so the run.
import { createNexusServiceClient } from '@temporalio/workflow';
import {
  NEXUS_ENDPOINT,
  platformOpsNexusService,
  type NexusStart,
  type ResultOf,
  type StartableWorkflowType,
} from '@platform-ops/client';

export interface NexusCallerInput<T extends StartableWorkflowType = StartableWorkflowType> {
  workflowType: T;
  start: NexusStart<T>;
  /** Default NEXUS_ENDPOINT. */
  endpoint?: string;
  /** How long the caller gives the whole operation; default a day. */
  timeoutSeconds?: number;
}

export async function nexusCaller<T extends StartableWorkflowType>(input: NexusCallerInput<T>): Promise<ResultOf<T>> {
  const platformOps = createNexusServiceClient({
    endpoint: input.endpoint ?? NEXUS_ENDPOINT,
    service: platformOpsNexusService,
  });
  // One operation per workflow type, each typed by its contract; this caller takes any of them.
  const result: Promise<unknown> = platformOps.executeOperation(input.workflowType as never, input.start as never, {
    scheduleToCloseTimeout: (input.timeoutSeconds ?? 86_400) * 1000,
  });
  return (await result) as ResultOf<T>;
}
