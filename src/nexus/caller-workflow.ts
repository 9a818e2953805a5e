// A caller's workflow, as another team would write it in its own namespace: it imports the service and the endpoint's
// name, starts one operation and waits for its result. Cancelling this workflow cancels the operation, and so the run.
import { NexusOperationFailure, ServerFailure } from '@temporalio/common';
import { createNexusServiceClient, patched, sleep, workflowInfo } from '@temporalio/workflow';
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

/** The gRPC statuses a Temporal server names a failure of its own by, that say "try again later". */
const TRANSIENT_STATUS = /^(Unavailable|ResourceExhausted|DeadlineExceeded|Aborted): /;

/**
 * The caller's own server failed the operation before any handler answered: a Temporal server that finds no frontend
 * to deliver a start to (in the moments after its restart) fails the operation at once with that gRPC status, marked
 * non-retryable (its classification of an error from its own HTTP round trip). The handler never saw the request; a
 * start sent again with the same idempotency key still yields one run.
 */
export function undeliveredStart(err: unknown): boolean {
  return (
    err instanceof NexusOperationFailure &&
    err.cause instanceof ServerFailure &&
    TRANSIENT_STATUS.test(err.cause.message)
  );
}

const RESEND_FIRST_MS = 1_000;
const RESEND_MAX_MS = 30_000;

export async function nexusCaller<T extends StartableWorkflowType>(input: NexusCallerInput<T>): Promise<ResultOf<T>> {
  const platformOps = createNexusServiceClient({
    endpoint: input.endpoint ?? NEXUS_ENDPOINT,
    service: platformOpsNexusService,
  });
  const timeoutMs = (input.timeoutSeconds ?? 86_400) * 1000;
  const deadline = workflowInfo().startTime.getTime() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      // One operation per workflow type, each typed by its contract; this caller takes any of them.
      const result: Promise<unknown> = platformOps.executeOperation(input.workflowType as never, input.start as never, {
        scheduleToCloseTimeout: attempt === 1 ? timeoutMs : Math.max(1_000, deadline - Date.now()),
      });
      return (await result) as ResultOf<T>;
    } catch (err) {
      // Without a key, a second start could make a second run; the keyed one finds the first.
      const resend = input.start.idempotencyKey !== undefined && undeliveredStart(err);
      const pause = Math.min(RESEND_FIRST_MS * 2 ** (attempt - 1), RESEND_MAX_MS);
      if (!resend || Date.now() + pause >= deadline || !patched('nexus-caller-resends-undelivered-start')) throw err;
      await sleep(pause);
    }
  }
}
