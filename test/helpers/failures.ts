// The ApplicationFailure at the root of a failed workflow, however deeply it is wrapped.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

export async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  let cause: unknown = (err as WorkflowFailedError).cause;
  // An activity failure wraps the ApplicationFailure one level down.
  while (cause instanceof Error && !(cause instanceof ApplicationFailure)) cause = cause.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}
