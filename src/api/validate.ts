// Workflow input validation: inside the workflow (so any client, in any language, is checked) and in
// the starter (so a typo fails before anything starts). Pure: runs in the workflow sandbox.
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { formatIssues, parseOrThrow, type ValidationIssue } from '../platform/validation';
import { reservedKeyIssues } from '../shared/reserved-keys';
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
  // Before zod: its records drop a "__proto__" key silently, and a refusal must name it.
  const reserved = reservedKeyIssues(input);
  const value = parseOrThrow(schema, input ?? {}, (issues) => invalidInput(what, [...reserved, ...issues]));
  if (reserved.length > 0) throw invalidInput(what, reserved);
  return value;
}
