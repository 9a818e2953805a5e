// What the work itself amounts to, on the SDK's metric meter beside the platform calls
// (./platform-calls.ts), so it shows on the worker's Prometheus endpoint (METRICS_PORT): output bytes
// kept, and money reserved and released per member (docs/observability.md).
// Without METRICS_PORT the SDK's meter records into nothing. Every label has a bounded set of values:
// statuses and kinds are fixed unions, and member ids are the platform's members that have a budget
// ledger (one ledger workflow per member), not anything a caller makes up per request.
import type { MetricCounter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { BUDGET_GATED_JOB_STATUSES } from '../workflows/budget/contract';
import { OUTPUT_KINDS } from '../platform/models';

interface WorkMetrics {
  outputBytes: MetricCounter;
  outputFiles: MetricCounter;
  reserved: MetricCounter;
  released: MetricCounter;
}

let instruments: WorkMetrics | undefined;

/** Created on first use: the worker installs its Runtime (with the Prometheus exporter) before any activity runs. */
function metrics(): WorkMetrics {
  if (!instruments) {
    const meter = Runtime.instance().metricMeter;
    instruments = {
      outputBytes: meter.createCounter('outputs_kept_bytes', 'bytes', 'Bytes of outputs copied to the artifact store'),
      outputFiles: meter.createCounter('outputs_kept_files', 'files', 'Outputs copied to the artifact store'),
      reserved: meter.createCounter('budget_reserved', 'usd_ten_thousandths', 'Budget reserved by admitted jobs'),
      released: meter.createCounter(
        'budget_released',
        'usd_ten_thousandths',
        'Reservations given back when their job ended',
      ),
    };
  }
  return instruments;
}

/** One of `known`, else "other": a label never takes a value from outside a fixed set. */
const bounded = (value: string | undefined, known: readonly string[]): string =>
  value !== undefined && known.includes(value) ? value : 'other';

/** An output copied into the artifact store. */
export function recordOutputKept(kind: string, bytes: number): void {
  const tags = { kind: bounded(kind, [...OUTPUT_KINDS, 'batch_output', 'batch_errors']) };
  metrics().outputBytes.add(Math.max(0, Math.round(bytes)), tags);
  metrics().outputFiles.add(1, tags);
}

/** A reservation the member's ledger admitted (not a repeat of one it already held). */
export function recordBudgetReserved(memberId: string, amount: number): void {
  if (amount > 0) metrics().reserved.add(Math.round(amount), { member_id: memberId });
}

/**
 * A reservation given back, with the status its job ended in: a COMPLETED job's is what the job was
 * cleared to spend (its charge is at most that; the platform's bill list has the exact charge).
 */
export function recordBudgetReleased(memberId: string, amount: number, jobStatus: string | undefined): void {
  if (amount > 0) {
    metrics().released.add(Math.round(amount), {
      member_id: memberId,
      job_status: bounded(jobStatus, BUDGET_GATED_JOB_STATUSES),
    });
  }
}
