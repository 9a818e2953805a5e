import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '@platform-ops/client';

export function attachedNotFound(err: unknown, what: 'task' | 'batch', id: string): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.NotFound) return undefined;
  return ApplicationFailure.create({
    type: FailureType.NotFound,
    nonRetryable: true,
    message:
      `The ${what} ${id} does not exist on the platform (${cause.message}): there is nothing to attach to. ` +
      `Check the id, and that the worker uses the API key of the account that made the ${what}.`,
    details: [{ [`${what}Id`]: id }],
  });
}
