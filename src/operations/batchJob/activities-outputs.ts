// Only references and counts reach the history. A retry does it all again: the files stay on the platform for 30
// days and a put overwrites its key.
import { Readable } from 'node:stream';
import { Context, log } from '@temporalio/activity';
import {
  type BatchJobResult,
  BatchOutputLine,
  type BatchRequestSummary,
  jsonlLines,
  type KeptBatchFile,
} from '@platform-ops/client';
import type { PlatformClient } from '../../platform-client/client';
import { safeSegment, type ArtifactStore } from '../../artifacts';
import { recordOutputKept } from '../../metrics';

export interface KeepBatchOutputsInput {
  workflowId: string;
  batchId: string;
  outputFileId?: string;
  errorFileId?: string;
  /** custom_ids in input order, if known, to count requests with no line at all */
  customIds?: string[];
}

export type KeepBatchOutputsResult = Pick<BatchJobResult, 'output' | 'errors'> & { summary: BatchRequestSummary };

const NOT_RUN_CODES: ReadonlySet<string> = new Set(['batch_expired', 'batch_cancelled']);
const MISSING_CODE = 'missing_result';
const SAMPLE_FAILURES = 20;
// The result must stay small: messages, ids and error codes (the platform's strings) are cut, and so is their number.
const SAMPLE_CHARS = 200;
const MAX_ERROR_CODES = 50;
const OTHER_CODES = 'other';
const LOGGED_BAD_LINES = 5;

type Kind = 'succeeded' | 'failed' | 'notRun';

interface RequestOutcome {
  custom_id: string;
  kind: Kind;
  status_code?: number;
  error_code?: string;
  message?: string;
}

function outcomeOf(text: string, file: 'output' | 'errors'): RequestOutcome | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = BatchOutputLine.safeParse(json);
  if (!parsed.success) return undefined;
  const { custom_id, response, error } = parsed.data;
  const status_code = response?.status_code;
  if (file === 'output' && !error && status_code !== undefined && status_code >= 200 && status_code < 300) {
    return { custom_id, kind: 'succeeded', status_code };
  }
  const error_code = error?.code ?? (status_code !== undefined ? `http_${status_code}` : 'unknown');
  const notRun = file === 'errors' && !response && NOT_RUN_CODES.has(error_code);
  return { custom_id, kind: notRun ? 'notRun' : 'failed', status_code, error_code, message: error?.message };
}

const bytesOf = (text: string): AsyncIterable<Uint8Array> => Readable.from([Buffer.from(text, 'utf8')]);

export function createBatchOutputActivities(platform: PlatformClient, store: ArtifactStore) {
  return {
    async keepBatchOutputs(input: KeepBatchOutputsInput): Promise<KeepBatchOutputsResult> {
      const ctx = Context.current();
      const signal = ctx.cancellationSignal;
      const dir = `batches/${safeSegment(input.workflowId)}/${safeSegment(input.batchId)}`;
      const outcomes: RequestOutcome[] = [];
      const keep = async (
        fileId: string | undefined,
        file: 'output' | 'errors',
      ): Promise<KeptBatchFile | undefined> => {
        if (!fileId) return undefined;
        const key = `${dir}/${file}.jsonl`;
        ctx.heartbeat({ step: 'downloading', file, fileId });
        const content = await platform.getFileContent(fileId, { signal });
        ctx.heartbeat({ step: 'storing', file, fileId });
        const stored = await store.put(key, bytesOf(content), { contentType: 'application/jsonl', signal });
        recordOutputKept(`batch_${file}`, stored.bytes);
        const lines = jsonlLines(content);
        const bad: number[] = [];
        for (const { lineNo, text } of lines) {
          const outcome = outcomeOf(text, file);
          if (outcome) outcomes.push(outcome);
          else bad.push(lineNo);
        }
        // Lenient: a line we cannot read is kept in the copy and named in the log, not fatal.
        if (bad.length > 0) {
          log.warn('Batch file lines that are not result lines', {
            batchId: input.batchId,
            fileId,
            count: bad.length,
            lines: bad.slice(0, LOGGED_BAD_LINES),
          });
        }
        return { fileId, uri: stored.uri, bytes: stored.bytes, sha256: stored.sha256, lines: lines.length };
      };

      const output = await keep(input.outputFileId, 'output');
      const errors = await keep(input.errorFileId, 'errors');
      const all = withMissing(outcomes, input.customIds);
      ctx.heartbeat({ step: 'summarising', requests: all.length });
      const perRequest = all
        .map(({ custom_id, kind, status_code, error_code }) =>
          JSON.stringify({ custom_id, ok: kind === 'succeeded', status_code, error_code }),
        )
        .join('\n');
      const summaryFile = await store.put(`${dir}/requests.jsonl`, bytesOf(perRequest ? `${perRequest}\n` : ''), {
        contentType: 'application/jsonl',
        signal,
      });
      const summary = summarise(all, summaryFile.uri);
      const { succeeded, failed, notRun } = summary;
      const kept = { output: output?.uri, errors: errors?.uri, requests: summaryFile.uri };
      log.info('Kept batch outputs', { batchId: input.batchId, ...kept, succeeded, failed, notRun });
      return { ...(output ? { output } : {}), ...(errors ? { errors } : {}), summary };
    },
  };
}

/** Outcomes in input order, a failed one for each id no file mentions, strays last. */
function withMissing(outcomes: RequestOutcome[], customIds: string[] | undefined): RequestOutcome[] {
  if (!customIds) return outcomes;
  const byId = new Map<string, RequestOutcome[]>();
  for (const o of outcomes) byId.set(o.custom_id, [...(byId.get(o.custom_id) ?? []), o]);
  const missing = (id: string): RequestOutcome[] => [
    { custom_id: id, kind: 'failed', error_code: MISSING_CODE, message: 'no line in the output or error file' },
  ];
  const ordered = customIds.flatMap((id) => {
    const seen = byId.get(id) ?? missing(id);
    byId.delete(id);
    return seen;
  });
  return [...ordered, ...[...byId.values()].flat()];
}

function summarise(all: RequestOutcome[], perRequestUri: string): BatchRequestSummary {
  const counts: Record<Kind, number> = { succeeded: 0, failed: 0, notRun: 0 };
  // A Map, not an object: a code is the platform's string, and "__proto__" must stay a plain key.
  const byErrorCode = new Map<string, number>();
  for (const o of all) {
    counts[o.kind]++;
    if (o.error_code === undefined) continue;
    const code = o.error_code.slice(0, SAMPLE_CHARS);
    const key = byErrorCode.has(code) || byErrorCode.size < MAX_ERROR_CODES ? code : OTHER_CODES;
    byErrorCode.set(key, (byErrorCode.get(key) ?? 0) + 1);
  }
  const sampleFailures = all
    .filter((o) => o.kind === 'failed')
    .slice(0, SAMPLE_FAILURES)
    .map((o) => ({
      custom_id: o.custom_id.slice(0, SAMPLE_CHARS),
      code: o.error_code?.slice(0, SAMPLE_CHARS),
      message: o.message?.slice(0, SAMPLE_CHARS),
    }));
  return { ...counts, byErrorCode: Object.fromEntries(byErrorCode), perRequestUri, sampleFailures };
}
