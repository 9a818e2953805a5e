// The worker's own metrics, on the SDK's metric meter, so they appear on the worker's Prometheus
// endpoint (METRICS_PORT) beside the SDK's: every platform call by operation and status, its
// latency, the 429s, and the shared pace of each quota (docs/rate-limits.md#metrics).
import { Runtime } from '@temporalio/worker';
import type { CallEvent } from '../platform-client/transport';
import type { QuotaPace } from '../ratelimit/shared-pacing';

/** The status label of a call: the HTTP status, or why there was none. */
function statusLabel(event: CallEvent): string {
  if (event.status !== undefined) return String(event.status);
  return event.error?.includes('timeout') ? 'timeout' : 'network_error';
}

/** A transport `onCall` that counts each platform call. */
export function platformCallMetrics(): (event: CallEvent) => void {
  const meter = Runtime.instance().metricMeter;
  const calls = meter.createCounter('platform_calls', 'calls', 'Platform API calls by operation and status');
  const latency = meter.createHistogram('platform_call_latency', 'int', 'ms', 'Platform API call latency');
  const limited = meter.createCounter('platform_rate_limited', 'calls', 'Platform API calls answered 429');
  return (event) => {
    const tags = { operation: event.operation };
    calls.add(1, { ...tags, status: statusLabel(event) });
    latency.record(Math.max(0, Math.round(event.durationMs)), tags);
    if (event.status === 429) limited.add(1, tags);
  };
}

/** A SharedPacing `onPace` that shows each quota's current pace. */
export function pacingGauge(): (pace: QuotaPace) => void {
  const meter = Runtime.instance().metricMeter;
  const rps = meter.createGauge('platform_pacing_rps', 'float', 'tasks/s', 'Shared pace of paid submits per quota');
  const factor = meter.createGauge('platform_pacing_factor', 'float', '1', 'Share of the quota in use after 429s');
  return (pace) => {
    const tags = { operation: pace.operation };
    if (pace.targetRps !== undefined) rps.set(pace.targetRps * pace.state.factor, tags);
    factor.set(pace.state.factor, tags);
  };
}
