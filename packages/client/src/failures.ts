import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { formatIssues, parseOrThrow, type ValidationIssue } from './validation';
import { reservedKeyIssues } from './reserved-keys';

export const FailureType = {
  InvalidInput: 'InvalidInput',
  Unauthorized: 'Unauthorized',
  NotFound: 'NotFound',
  BudgetExceeded: 'BudgetExceeded',
  PlatformRejected: 'PlatformRejected',
  /** A serverless endpoint's workers ran but did not turn healthy within the deploy's bound. */
  EndpointUnhealthy: 'EndpointUnhealthy',
  RateLimited: 'RateLimited',
  PlatformUnavailable: 'PlatformUnavailable',
  TemporalUnavailable: 'TemporalUnavailable',
  DeadlineExceeded: 'DeadlineExceeded',
  AmbiguousSubmission: 'AmbiguousSubmission',
  GenerationFailed: 'GenerationFailed',
  JobStopped: 'JobStopped',
  BatchFailed: 'BatchFailed',
  OutputExpired: 'OutputExpired',
  NothingEarlier: 'NothingEarlier',
  StillRunning: 'StillRunning',
} as const;
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];

export interface SendingMark {
  sendingAt: number;
}

export function markedSending(lastHeartbeatDetails: unknown): boolean {
  return typeof (lastHeartbeatDetails as Partial<SendingMark> | undefined)?.sendingAt === 'number';
}

export function invalidInput(what: string, issues: ValidationIssue[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `Invalid ${what} input: ${formatIssues(issues)}`,
    details: [{ issues }],
  });
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  // Before zod: its records drop a "__proto__" key silently, and a refusal must name it.
  const reserved = reservedKeyIssues(input);
  const value = parseOrThrow(schema, input ?? {}, (issues) => invalidInput(what, [...reserved, ...issues]));
  if (reserved.length > 0) throw invalidInput(what, reserved);
  return value;
}
