// Turns Temporal client errors into one sentence for a person.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { CliError, ExitCode } from './exit-codes';

/** The innermost failure that says what went wrong (an activity failure wraps the real one). */
export function rootCause(err: Error): Error {
  let current: Error = err;
  for (let i = 0; i < 10; i++) {
    const next = (current as { cause?: unknown }).cause;
    if (!(next instanceof Error)) break;
    current = next;
  }
  return current;
}

/**
 * An Update sent to a closed workflow: the server answers NOT_FOUND "workflow execution already
 * completed" (for any way of closing), and the client turns that into WorkflowNotFoundError.
 */
export function isClosedWorkflow(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError && /already completed/i.test(err.message);
}

export function toCliError(err: unknown, workflowId?: string): CliError {
  if (err instanceof CliError) return err;
  const id = workflowId ? `Workflow ${workflowId}` : 'The workflow';
  if (isClosedWorkflow(err)) {
    // The request came too late rather than naming a wrong id: the same code as a validator's refusal.
    return new CliError(
      `${id} has already finished, so it takes no more requests; describe it to see how it ended.`,
      ExitCode.Usage,
    );
  }
  if (err instanceof WorkflowNotFoundError) return new CliError(`${id} was not found.`, ExitCode.NotFound);
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new CliError(`${id} is already running: pick another --id, or describe it.`, ExitCode.AlreadyStarted);
  }
  if (err instanceof WorkflowUpdateFailedError) {
    // A validator's refusal (or the handler's failure): the workflow itself goes on.
    const cause = err.cause ? rootCause(err.cause) : undefined;
    return new CliError(`${id} refused the request: ${cause?.message ?? err.message}`, ExitCode.Usage);
  }
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause ? rootCause(err.cause) : undefined;
    if (cause instanceof CancelledFailure || err.cause instanceof CancelledFailure) {
      return new CliError(`${id} was cancelled.`, ExitCode.WorkflowFailed);
    }
    if (err.cause instanceof TerminatedFailure) return new CliError(`${id} was terminated.`, ExitCode.WorkflowFailed);
    if (err.cause instanceof TimeoutFailure) return new CliError(`${id} timed out.`, ExitCode.WorkflowFailed);
    const type = cause instanceof ApplicationFailure && cause.type ? ` [${cause.type}]` : '';
    return new CliError(`${id} failed: ${cause?.message ?? err.message}${type}`, ExitCode.WorkflowFailed);
  }
  if (err instanceof Error) return new CliError(err.message, ExitCode.WorkflowFailed);
  return new CliError(String(err), ExitCode.WorkflowFailed);
}
