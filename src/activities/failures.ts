// Maps a PlatformError to an ApplicationFailure with a stable type, so workflows and callers in any
// language can tell "retry later" from "this will never work". Retry-After becomes nextRetryDelay.
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, type FailureTypeName } from '../api/failures';
import { PlatformError } from '../platform-client/errors';

const BUDGET_REASONS = new Set(['BILLING_BALANCE_NOT_ENOUGH', 'BUDGET_EXCEEDED', 'INSUFFICIENT_BALANCE']);

function finalType(err: PlatformError): FailureTypeName {
  if (err.kind === 'invalid_request') return FailureType.InvalidInput;
  if (err.status === 401 || err.status === 403) return FailureType.Unauthorized;
  // The GPU API reports a missing instance as 400 RESOURCE_NOT_FOUND, the task API as 404.
  if (err.status === 404 || err.reason?.endsWith('NOT_FOUND')) return FailureType.NotFound;
  if (err.status === 402 || (err.reason && BUDGET_REASONS.has(err.reason))) return FailureType.BudgetExceeded;
  if (err.status === 400 && err.reason === 'INVALID_REQUEST_BODY') return FailureType.InvalidInput;
  return FailureType.PlatformRejected;
}

/**
 * `nextRetryDelayMs` replaces the Retry-After for a retryable error: activities that pace their own
 * retries (the retry-as-poll waits) pass the delay they chose. `detail` adds facts an activity decided
 * to the error's own (the submit's outcome).
 */
export function toApplicationFailure(
  err: PlatformError,
  opts: { nextRetryDelayMs?: number; detail?: Record<string, unknown> } = {},
): ApplicationFailure {
  const details = [{ ...err.toJSON(), ...opts.detail }];
  if (!err.retryable) {
    return ApplicationFailure.create({ type: finalType(err), message: err.message, nonRetryable: true, details });
  }
  return ApplicationFailure.create({
    type: err.status === 429 ? FailureType.RateLimited : FailureType.PlatformUnavailable,
    message: err.message,
    nonRetryable: false,
    details,
    // Honour the platform's Retry-After; otherwise the activity's retry policy backs off.
    nextRetryDelay: opts.nextRetryDelayMs ?? err.retryAfterMs,
  });
}

/** Wraps every activity so a PlatformError leaves it as a typed ApplicationFailure. */
export function withPlatformFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
): T {
  const wrapped: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw err instanceof PlatformError ? toApplicationFailure(err) : err;
      }
    };
    // Keep the function name: it is the activity type the worker registers.
    Object.defineProperty(wrapped[name], 'name', { value: name });
  }
  return wrapped as T;
}
