// The few facts of a platform batch the workflow needs, small enough for its history.
import type { BatchObservation } from '../../workflows/batch/contract';
import type { Batch } from '../../platform/schemas/batches';

export interface BatchSnapshot {
  id: string;
  status: string;
  inputFileId: string;
  /** Epoch ms of the platform's created_at (RFC 3339 or Unix seconds). */
  createdAtMs: number;
  requestCounts: BatchObservation['requestCounts'];
  outputFileId?: string;
  errorFileId?: string;
}

function epochMs(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return value < 1e12 ? value * 1000 : value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function snapshotOf(batch: Batch): BatchSnapshot {
  return {
    id: batch.id,
    status: batch.status,
    inputFileId: batch.input_file_id,
    createdAtMs: epochMs(batch.created_at) ?? Date.now(),
    requestCounts: {
      total: batch.request_counts.total,
      completed: batch.request_counts.completed,
      failed: batch.request_counts.failed,
    },
    outputFileId: batch.output_file_id ?? undefined,
    errorFileId: batch.error_file_id ?? undefined,
  };
}
