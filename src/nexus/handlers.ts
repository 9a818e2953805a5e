// The Nexus service's handlers on the worker: each operation starts its workflow as a workflow-run operation, placed,
// named and guarded as startWorkflow does it (packages/client/src/start.ts), on the task queue the endpoint targets.
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import {
  getClient,
  operationInfo,
  startWorkflow,
  WorkflowRunOperationHandler,
  type WorkflowHandle,
} from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import {
  FailureType,
  IdempotencyKeyReusedError,
  platformOpsNexusService,
  STARTABLE_WORKFLOW_TYPES,
  startRequest,
  type InputOf,
  type NexusStart,
  type ResultOf,
  type StartableWorkflowType,
} from '@platform-ops/client';

/** The run's key when the caller gives none: the server repeats a start with its request id, which finds the run. */
export const requestKey = (requestId: string): string => `nexus-${requestId}`;

type StartRequest<T extends StartableWorkflowType> = ReturnType<typeof startRequest<T>>;

/** A key used for another input refuses the operation for good. */
const asConflict = (err: unknown): unknown =>
  err instanceof IdempotencyKeyReusedError
    ? new nexus.HandlerError('CONFLICT', err.message, { retryableOverride: false })
    : err;

class StartOperation<T extends StartableWorkflowType> implements nexus.OperationHandler<NexusStart<T>, ResultOf<T>> {
  // Given the request start() has checked, so the input is parsed once.
  private readonly run = new WorkflowRunOperationHandler<StartRequest<T>, ResultOf<T>>(async (ctx, request) => {
    const handle = await startWorkflow(ctx, this.type as string, request.options);
    // The start has joined a run of the same key, which must have been started with the same input.
    await request.startedHere(getClient().workflow.getHandle(handle.workflowId));
    return handle as WorkflowHandle<ResultOf<T>>;
  });

  constructor(private readonly type: T) {}

  async start(ctx: nexus.StartOperationContext, start: NexusStart<T>) {
    const request = this.request(ctx, start);
    try {
      return await this.run.start(ctx, request);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw asConflict(err);
      // The key's run has closed and may not run again: its outcome is the operation's, at once.
      return nexus.HandlerStartOperationResult.sync(await this.closedRunResult(request));
    }
  }

  cancel(ctx: nexus.CancelOperationContext, token: string): Promise<void> {
    return this.run.cancel(ctx, token);
  }

  /** Checked with the workflow's own schema before anything starts: a bad input fails the caller's operation. */
  private request(ctx: nexus.StartOperationContext, start: NexusStart<T>): StartRequest<T> {
    const { input, idempotencyKey, ...opts } = (start ?? {}) as Partial<NexusStart<T>>;
    try {
      return startRequest(this.type, input as InputOf<T>, {
        ...opts,
        idempotencyKey: idempotencyKey ?? requestKey(ctx.requestId),
        taskQueue: operationInfo().taskQueue,
      });
    } catch (err) {
      if (err instanceof ApplicationFailure && err.type === FailureType.InvalidInput) {
        throw new nexus.HandlerError('BAD_REQUEST', err.message, { cause: err, retryableOverride: false });
      }
      throw err;
    }
  }

  private async closedRunResult(request: StartRequest<T>): Promise<ResultOf<T>> {
    const handle = getClient().workflow.getHandle(request.workflowId);
    await request.startedHere(handle).catch((err: unknown) => {
      throw asConflict(err);
    });
    try {
      return (await handle.result()) as ResultOf<T>;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      const state = err.cause instanceof CancelledFailure ? 'canceled' : 'failed';
      throw new nexus.OperationError(state, err.cause?.message ?? err.message, { cause: err.cause ?? err });
    }
  }
}

/** Registered with the worker of the task queue the endpoint targets (src/worker.ts). */
export function platformOpsNexusHandlers() {
  const handlers = Object.fromEntries(STARTABLE_WORKFLOW_TYPES.map((type) => [type, new StartOperation(type)]));
  return nexus.serviceHandler(platformOpsNexusService, handlers as never);
}
