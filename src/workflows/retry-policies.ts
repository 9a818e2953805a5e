// Retry policies of the workflows' activities, in one place.
import type { RetryPolicy } from '@temporalio/workflow';

/**
 * Retry-as-poll activities (src/activities/poll-again.ts): each attempt sets its own next delay, so
 * this policy applies only to an attempt that ends without one (a lost worker, a bug). No attempt
 * count: the operation's deadline, the activity's schedule-to-close timeout, is the only bound.
 */
export const RETRY_AS_POLL: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '5m',
};
