// A refusal of the files or batches API, thrown by the store and turned into the platform's error
// body by the routes (one mapping, so every refusal has the same shape).
import type { ValidationIssue } from '@platform-ops/client';

export class BatchApiError extends Error {
  override readonly name = 'BatchApiError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** Set for 400 INVALID_REQUEST_BODY: answered through sendInvalid, which names each field. */
    readonly issues?: ValidationIssue[],
  ) {
    super(message);
  }

  static invalid(issues: ValidationIssue[]): BatchApiError {
    return new BatchApiError(400, 'INVALID_REQUEST_BODY', 'invalid request', issues);
  }

  static fileNotFound(id: string): BatchApiError {
    return new BatchApiError(404, 'FILE_NOT_FOUND', `file ${id} not found`);
  }

  static batchNotFound(id: string): BatchApiError {
    return new BatchApiError(404, 'BATCH_NOT_FOUND', `batch ${id} not found`);
  }
}
