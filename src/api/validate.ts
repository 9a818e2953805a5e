// Workflow input validation: inside the workflow (so any client, in any language, is checked) and in
// the starter (so a typo fails before anything starts). Pure: runs in the workflow sandbox.
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { describeZodError, formatIssues, type ValidationIssue } from '../platform/validation';
import { FailureType } from './failures';

export function invalidInput(what: string, issues: ValidationIssue[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `Invalid ${what} input: ${formatIssues(issues)}`,
    details: [{ issues }],
  });
}

/** Parses a workflow input, or throws a non-retryable InvalidInput failure naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw invalidInput(what, describeZodError(parsed.error));
  return parsed.data;
}
