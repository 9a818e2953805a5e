// The receiver's counters, through the Temporal SDK's metric meter, so they appear on the same
// Prometheus endpoint as the worker's own metrics (METRICS_PORT) in whichever process runs it.
import type { MetricMeter } from '@temporalio/common';

/** What became of a callback the receiver took (2xx). */
export type ReceivedOutcome = 'delivered' | 'not_terminal' | 'workflow_closed';
/** Why a callback was refused (4xx). */
export type RejectedReason =
  'bad_token' | 'bad_address' | 'malformed_body' | 'too_large' | 'unknown_task' | 'replay' | 'flood';

export interface CallbackMetrics {
  received(outcome: ReceivedOutcome): void;
  rejected(reason: RejectedReason): void;
}

export const CALLBACKS_RECEIVED = 'platform_ops_webhook_callbacks_received';
export const CALLBACKS_REJECTED = 'platform_ops_webhook_callbacks_rejected';

export function callbackMetrics(meter: MetricMeter): CallbackMetrics {
  const received = meter.createCounter(CALLBACKS_RECEIVED, 'callbacks', 'Task callbacks taken, by outcome');
  const rejected = meter.createCounter(CALLBACKS_REJECTED, 'callbacks', 'Task callbacks refused with a 4xx, by reason');
  return {
    received: (outcome) => received.add(1, { outcome }),
    rejected: (reason) => rejected.add(1, { reason }),
  };
}
