// Uploading a batch's input file. The client checks every line against the platform's rules before
// sending (a bad line fails as InvalidInput, naming it). An upload costs nothing, so a retried one is
// harmless: at worst an unused input file, which the platform deletes after 15 days.
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import type { PlatformClient } from '../../platform/client';
import { BATCH_MAX_BYTES, toJsonl, type BatchEndpoint, type BatchInputLine } from '../../platform/schemas/batches';

export type UploadBatchInputInput =
  | { endpoint: BatchEndpoint; requests: BatchInputLine[]; filename?: string }
  | { endpoint: BatchEndpoint; inputFileUri: string; filename?: string };

export interface UploadBatchInputResult {
  fileId: string;
  bytes: number;
  totalRequests?: number;
}

const tooLarge = (bytes: number) =>
  ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `inputFileUri: the file must be at most 100 MB (is ${(bytes / 2 ** 20).toFixed(1)} MB)`,
  });

/** The JSONL behind an inputFileUri: a file on a disk the worker shares, or an http(s) URL. */
async function readInput(uri: string, signal: AbortSignal): Promise<string> {
  if (uri.startsWith('file://')) {
    const path = fileURLToPath(uri);
    const { size } = await stat(path);
    if (size > BATCH_MAX_BYTES) throw tooLarge(size);
    return readFile(path, { encoding: 'utf8', signal });
  }
  // No credentials: the URL is the caller's, not the platform's.
  const res = await fetch(uri, { signal });
  if (!res.ok) {
    throw ApplicationFailure.create({
      type: res.status >= 500 || res.status === 429 ? FailureType.PlatformUnavailable : FailureType.InvalidInput,
      nonRetryable: !(res.status >= 500 || res.status === 429),
      message: `inputFileUri: ${new URL(uri).origin}${new URL(uri).pathname} answered HTTP ${res.status}`,
    });
  }
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > BATCH_MAX_BYTES) throw tooLarge(length);
  return res.text();
}

export function createBatchUploadActivities(platform: PlatformClient) {
  return {
    async uploadBatchInput(input: UploadBatchInputInput): Promise<UploadBatchInputResult> {
      const signal = Context.current().cancellationSignal;
      const content = 'requests' in input ? toJsonl(input.requests) : await readInput(input.inputFileUri, signal);
      const file = await platform.uploadBatchInputFile(
        { content, endpoint: input.endpoint, filename: input.filename ?? 'batch-input.jsonl' },
        { signal },
      );
      return { fileId: file.id, bytes: file.bytes ?? content.length, totalRequests: file.metadata?.total_requests };
    },
  };
}
