// The worker's own metrics on the SDK's meter; every label has a bounded set of values (docs/observability.md).
import { Runtime } from '@temporalio/worker';
import type { CallEvent } from '../platform-client/transport';
import type { QuotaPace } from '../ratelimit/shared-pacing';
import { BUDGET_GATED_JOB_STATUSES, OUTPUT_KINDS } from '@platform-ops/client';

function statusLabel(event: CallEvent): string {
  if (event.status !== undefined) return String(event.status);
  return event.error?.includes('timeout') ? 'timeout' : 'network_error';
}

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

// Created on first use: the worker installs its Runtime (with the Prometheus exporter) before any activity runs.
let instruments: ReturnType<typeof workMetrics> | undefined;
const metrics = () => (instruments ??= workMetrics());

function workMetrics() {
  const meter = Runtime.instance().metricMeter;
  return {
    outputBytes: meter.createCounter('outputs_kept_bytes', 'bytes', 'Bytes of outputs copied to the artifact store'),
    outputFiles: meter.createCounter('outputs_kept_files', 'files', 'Outputs copied to the artifact store'),
    reserved: meter.createCounter('budget_reserved', 'usd_ten_thousandths', 'Budget reserved by admitted jobs'),
    released: meter.createCounter(
      'budget_released',
      'usd_ten_thousandths',
      'Reservations given back when their job ended',
    ),
    submitWait: meter.createHistogram(
      'platform_submit_wait',
      'int',
      'ms',
      "A paid submit's wait for its turn on the quota, by fairness key and priority class",
    ),
  };
}

// Only the first keys seen are labelled by name, so a tenant per start cannot grow the series without bound.
const NAMED_FAIRNESS_KEYS = 20;
const namedKeys = new Set<string>();

export function recordSubmitWait(fairnessKey: string | undefined, priorityClass: string, waitMs: number): void {
  const key = fairnessKey || 'shared';
  if (!namedKeys.has(key) && namedKeys.size < NAMED_FAIRNESS_KEYS) namedKeys.add(key);
  const tags = {
    fairness_key: namedKeys.has(key) ? key : 'other',
    priority: bounded(priorityClass, ['interactive', 'scheduled', 'bulk']),
  };
  metrics().submitWait.record(Math.max(0, Math.round(waitMs)), tags);
}

const bounded = (value: string | undefined, known: readonly string[]): string =>
  value !== undefined && known.includes(value) ? value : 'other';

export function recordOutputKept(kind: string, bytes: number): void {
  const tags = { kind: bounded(kind, [...OUTPUT_KINDS, 'batch_output', 'batch_errors']) };
  metrics().outputBytes.add(Math.max(0, Math.round(bytes)), tags);
  metrics().outputFiles.add(1, tags);
}

export function recordBudgetReserved(memberId: string, amount: number): void {
  if (amount > 0) metrics().reserved.add(Math.round(amount), { member_id: memberId });
}

/** A COMPLETED job's is what it was cleared to spend; the platform's bill list has the exact charge. */
export function recordBudgetReleased(memberId: string, amount: number, jobStatus: string | undefined): void {
  const tags = { member_id: memberId, job_status: bounded(jobStatus, BUDGET_GATED_JOB_STATUSES) };
  if (amount > 0) metrics().released.add(Math.round(amount), tags);
}
