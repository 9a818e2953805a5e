// Keeping a finished batch's output and error files in the artifact store, with a per-request
// summary. Only references and counts go back to the workflow: the files can be far larger than a
// Temporal payload may be.
import { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import type { BatchRequestSummary, KeptBatchFile } from '../../api/schemas/batch';
import type { ArtifactStore } from '../../artifacts';
import type { PlatformClient } from '../../platform/client';
import { BatchOutputLine, jsonlLines } from '../../platform/schemas/batches';
import { safeSegment } from '../outputs';

export interface KeepBatchOutputsInput {
  workflowId: string;
  batchId: string;
  outputFileId?: string;
  errorFileId?: string;
}

export interface KeepBatchOutputsResult {
  output?: KeptBatchFile;
  errors?: KeptBatchFile;
  summary: BatchRequestSummary;
}

/** Codes the platform gives requests that never ran. */
const NOT_RUN_CODES = new Set(['batch_expired', 'batch_cancelled']);
const SAMPLE_FAILURES = 20;

interface RequestOutcome {
  custom_id: string;
  ok: boolean;
  status_code?: number;
  error_code?: string;
  message?: string;
}

function outcomeOf(text: string): RequestOutcome | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = BatchOutputLine.safeParse(json);
  if (!parsed.success) return undefined;
  const { custom_id, response, error } = parsed.data;
  const status = response?.status_code;
  const ok = !error && status !== undefined && status >= 200 && status < 300;
  return {
    custom_id,
    ok,
    status_code: status,
    error_code: ok ? undefined : (error?.code ?? (status !== undefined ? `http_${status}` : 'unknown')),
    message: error?.message,
  };
}

/** The store takes an async iterable of bytes (a stream); an array of one chunk is one. */
const utf8 = (text: string): AsyncIterable<Uint8Array> => Readable.from([Buffer.from(text, 'utf8')]);

export function createBatchOutputActivities(platform: PlatformClient, store: ArtifactStore) {
  return {
    async keepBatchOutputs(input: KeepBatchOutputsInput): Promise<KeepBatchOutputsResult> {
      const ctx = Context.current();
      const dir = `batches/${safeSegment(input.workflowId)}/${safeSegment(input.batchId)}`;
      const outcomes: RequestOutcome[] = [];

      const keep = async (fileId: string | undefined, name: string): Promise<KeptBatchFile | undefined> => {
        if (!fileId) return undefined;
        ctx.heartbeat({ file: name });
        const content = await platform.getFileContent(fileId, { signal: ctx.cancellationSignal });
        const lines = jsonlLines(content);
        for (const { text } of lines) {
          const outcome = outcomeOf(text);
          if (outcome) outcomes.push(outcome);
        }
        const stored = await store.put(`${dir}/${name}`, utf8(content), {
          contentType: 'application/jsonl',
          signal: ctx.cancellationSignal,
        });
        return { fileId, uri: stored.uri, bytes: stored.bytes, sha256: stored.sha256, lines: lines.length };
      };

      const output = await keep(input.outputFileId, 'output.jsonl');
      const errors = await keep(input.errorFileId, 'errors.jsonl');

      const byErrorCode: Record<string, number> = {};
      let succeeded = 0;
      let failed = 0;
      let notRun = 0;
      for (const o of outcomes) {
        if (o.ok) succeeded++;
        else if (o.error_code && NOT_RUN_CODES.has(o.error_code)) notRun++;
        else failed++;
        if (o.error_code) byErrorCode[o.error_code] = (byErrorCode[o.error_code] ?? 0) + 1;
      }
      const perRequest = outcomes
        .map(({ custom_id, ok, status_code, error_code }) => JSON.stringify({ custom_id, ok, status_code, error_code }))
        .join('\n');
      ctx.heartbeat({ file: 'requests.jsonl' });
      const summaryFile = await store.put(`${dir}/requests.jsonl`, utf8(`${perRequest}\n`), {
        contentType: 'application/jsonl',
      });
      const sampleFailures = outcomes
        .filter((o) => !o.ok && !(o.error_code && NOT_RUN_CODES.has(o.error_code)))
        .slice(0, SAMPLE_FAILURES)
        .map((o) => ({ custom_id: o.custom_id, code: o.error_code, message: o.message?.slice(0, 200) }));
      return {
        output,
        errors,
        summary: { succeeded, failed, notRun, byErrorCode, perRequestUri: summaryFile.uri, sampleFailures },
      };
    },
  };
}
