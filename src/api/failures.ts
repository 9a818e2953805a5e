// Stable ApplicationFailure types. Callers in any language match on these strings.
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
  /** A wait ran past its deadline. */
  DeadlineExceeded: 'DeadlineExceeded',
  /** A submit may have reached the platform but returned no task id; resubmitting could pay twice. */
  AmbiguousSubmission: 'AmbiguousSubmission',
  /** The platform's task ended TASK_STATUS_FAILED and no (further) generation is worth trying. */
  GenerationFailed: 'GenerationFailed',
  /** The platform failed the whole batch (its validation, say). */
  BatchFailed: 'BatchFailed',
  /** An output's URL stopped working (its TTL ran out) before it could be copied. */
  OutputExpired: 'OutputExpired',
  /**
   * Not an error: a poll found the operation still running and asks to run again when the platform's
   * hints say it should be done (retry-as-poll). Logged as benign; never ends a workflow.
   */
  StillRunning: 'StillRunning',
} as const;
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];
