// Stable ApplicationFailure types, which callers in any language match on, and the input check every workflow
// runs (so any client is checked) and the client runs before a start (so a typo starts nothing). Sandbox-safe.
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { formatIssues, parseOrThrow, type ValidationIssue } from './validation';
import { reservedKeyIssues } from './reserved-keys';

export const FailureType = {
  /** The input breaks a rule; nothing was sent. Never retried. */
  InvalidInput: 'InvalidInput',
  /** The platform refused the API key (401/403). */
  Unauthorized: 'Unauthorized',
  /** The instance, task, batch or file does not exist. */
  NotFound: 'NotFound',
  /** The member's budget or the account balance does not cover the cost. */
  BudgetExceeded: 'BudgetExceeded',
  /** The platform refused the request for another reason (a 4xx). */
  PlatformRejected: 'PlatformRejected',
  /** 429: retried after Retry-After. */
  RateLimited: 'RateLimited',
  /** 5xx, timeouts, resets, garbled bodies: retried with backoff. */
  PlatformUnavailable: 'PlatformUnavailable',
  /** The Temporal server did not record a paid call's attempt as sending; nothing was sent. Retried. */
  TemporalUnavailable: 'TemporalUnavailable',
  /** A wait ran past its deadline. */
  DeadlineExceeded: 'DeadlineExceeded',
  /** A submit may have reached the platform but returned no task id; resubmitting could pay twice. */
  AmbiguousSubmission: 'AmbiguousSubmission',
  /** The platform's task ended TASK_STATUS_FAILED and no (further) generation is worth trying. */
  GenerationFailed: 'GenerationFailed',
  /** A job ended without a result: cancelled, terminated or timed out (a reset run following it says so). */
  JobStopped: 'JobStopped',
  /** The platform failed the whole batch (its validation, say). */
  BatchFailed: 'BatchFailed',
  /** An output's URL stopped working (its TTL ran out) before it could be copied. */
  OutputExpired: 'OutputExpired',
  /**
   * Not an error: a reset run's look-up on its own queue found no earlier submit to take, and sent nothing;
   * the submit then takes its turn on its quota. Benign.
   */
  NothingEarlier: 'NothingEarlier',
  /** Not an error: a poll asks to run again when the hints say the operation is done (retry-as-poll); benign. */
  StillRunning: 'StillRunning',
} as const;
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];

/** What a paid call's attempt records as its heartbeat right before it sends (`sendingAt`, epoch ms). */
export interface SendingMark {
  sendingAt: number;
}

/** Whether a timed-out attempt's last heartbeat holds its sending mark: it may then have sent. */
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

/** Parses a workflow input, or throws a non-retryable InvalidInput failure naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  // Before zod: its records drop a "__proto__" key silently, and a refusal must name it.
  const reserved = reservedKeyIssues(input);
  const value = parseOrThrow(schema, input ?? {}, (issues) => invalidInput(what, [...reserved, ...issues]));
  if (reserved.length > 0) throw invalidInput(what, reserved);
  return value;
}
