// The Batch job object of the spec ("Batch job"), from a batch's record and its derived state.
// Timestamps are RFC 3339 strings in UTC (platform-notes: created_at may be an RFC 3339 string) or null.
import { BATCH_COMPLETION_WINDOW, type BatchEndpoint, type BatchStatus } from '@platform-ops/client';
import type { BatchState } from './state';

export interface BatchObject {
  id: string;
  object: 'batch';
  endpoint: BatchEndpoint;
  input_file_id: string;
  output_file_id: string;
  error_file_id: string;
  completion_window: typeof BATCH_COMPLETION_WINDOW;
  status: BatchStatus;
  in_progress_at: string | null;
  finalizing_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  expired_at: string | null;
  cancelling_at: string | null;
  cancelled_at: string | null;
  expires_at: string | null;
  updated_at: string | null;
  created_at: string;
  errors: string;
  version: number;
  created_by: string;
  created_by_key_id: string;
  remark: string;
  total: number;
  completed: number;
  failed: number;
  metadata: Record<string, string> | null;
  request_counts: { total: number; completed: number; failed: number };
}

interface BatchObjectInput {
  id: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  createdAt: number;
  createdBy: string;
  createdByKeyId: string;
  metadata: Record<string, string> | null;
  total: number;
  /** Set once the batch has ended and its files exist. */
  outputFileId: string;
  errorFileId: string;
  errors: string;
}

const rfc3339 = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function batchObject(b: BatchObjectInput, s: BatchState): BatchObject {
  const counts = { total: b.total, completed: s.completed, failed: s.failed };
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    input_file_id: b.inputFileId,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    completion_window: BATCH_COMPLETION_WINDOW,
    status: s.status,
    in_progress_at: rfc3339(s.inProgressAt),
    finalizing_at: rfc3339(s.finalizingAt),
    completed_at: rfc3339(s.completedAt),
    failed_at: rfc3339(s.failedAt),
    expired_at: rfc3339(s.expiredAt),
    cancelling_at: rfc3339(s.cancellingAt),
    cancelled_at: rfc3339(s.cancelledAt),
    expires_at: rfc3339(s.expiresAt),
    updated_at: rfc3339(s.updatedAt),
    created_at: new Date(b.createdAt).toISOString(),
    errors: b.errors,
    version: s.version,
    created_by: b.createdBy,
    created_by_key_id: b.createdByKeyId,
    remark: '',
    // The top-level counters mirror request_counts (the spec carries both).
    ...counts,
    metadata: b.metadata,
    request_counts: counts,
  };
}
