// A large --file is read by the worker from the shared disk: a workflow input must stay far below Temporal's 2 MB limit.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BATCH_ENDPOINTS,
  BATCH_INLINE_MAX_BYTES,
  type BatchEndpoint,
  batchInputProblems,
  type BatchJobResult,
  type BatchObservation,
  type BatchProgress,
  batchProgressQuery,
  formatIssues,
  jsonlLines,
} from '@platform-ops/client';
import { CliError, ExitCode } from '../../cli/command';
import { defineView, formatSeconds, renderBar } from '../../cli/progress';
import { defineStarter, num, readText } from '../../cli/flags';

export const starter = defineStarter({
  flags: {
    '--file <requests.jsonl>': 'batchJob: the batch requests, one JSON line each',
    '--endpoint <path>': 'batchJob: /v1/chat/completions or /v1/completions',
    '--input-file-id <id>': 'batchJob: an input file already uploaded',
    '--window-hours <n>': 'batchJob: the completion window (48)',
    '--grace-minutes <n>': 'batchJob: grace after the window before cancelling (15)',
    '--member-id <id>': 'the team member whose budget pays',
  },
  inputs: {
    batchJob: {
      usage:
        '--endpoint /v1/chat/completions|/v1/completions (--file requests.jsonl | --input-file-id ID) ' +
        '[--window-hours N] [--grace-minutes N] [--member-id ID]',
      input: (f) => {
        const endpoint = batchEndpoint(f.endpoint);
        if ((f.file === undefined) === (f.inputFileId === undefined)) {
          throw new CliError('batchJob needs either --file requests.jsonl or --input-file-id ID.', ExitCode.Usage);
        }
        return {
          endpoint,
          ...(f.file !== undefined ? batchFileInput(f.file, endpoint) : { inputFileId: f.inputFileId }),
          windowHours: num(f.windowHours, '--window-hours', 'windowHours'),
          graceMinutes: num(f.graceMinutes, '--grace-minutes', 'graceMinutes'),
          memberId: f.memberId,
        };
      },
    },
  },
  watch: {
    batchJob: defineView({
      query: batchProgressQuery,
      poll: {
        activity: 'pollBatch',
        lay: (progress, { batchId, status, requestCounts, polls }: BatchObservation) =>
          progress.outcome || batchId !== progress.batchId || !requestCounts
            ? undefined
            : { status, requestCounts, polls },
      },
      render: renderBatchProgress,
      changeKey: (p) => `${p.status}|${p.requestCounts?.completed ?? ''}|${p.requestCounts?.failed ?? ''}`,
      summary: renderBatchSummary,
    }),
  },
});

function batchEndpoint(value: string | undefined): BatchEndpoint {
  if (value === undefined) {
    throw new CliError(`--endpoint is required: one of ${BATCH_ENDPOINTS.join(', ')}.`, ExitCode.Usage);
  }
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(value)) {
    throw new CliError(`--endpoint must be one of ${BATCH_ENDPOINTS.join(', ')}, not "${value}".`, ExitCode.Usage);
  }
  return value as BatchEndpoint;
}

function batchFileInput(file: string, endpoint: BatchEndpoint): { requests: unknown[] } | { inputFileUri: string } {
  const text = readText(file, '--file');
  const problems = batchInputProblems(text, endpoint);
  if (problems.length > 0) throw new CliError(`--file ${file}: ${formatIssues(problems)}.`, ExitCode.Usage);
  if (Buffer.byteLength(text) <= BATCH_INLINE_MAX_BYTES) {
    return { requests: jsonlLines(text).map((l) => JSON.parse(l.text) as unknown) };
  }
  const uri = pathToFileURL(path.resolve(file)).href;
  process.stderr.write(
    `${file} is larger than ${BATCH_INLINE_MAX_BYTES / 1024} KB: the worker will read it from ${uri}, which must be inside the worker's INPUT_FILE_DIR.\n`,
  );
  return { inputFileUri: uri };
}

export function renderBatchProgress(p: BatchProgress, now: number, width?: number): string {
  const counts = p.requestCounts;
  const done = counts && counts.total > 0 ? ((counts.completed + counts.failed) * 100) / counts.total : undefined;
  const parts = [p.outcome ?? p.status, renderBar(done, width)];
  if (counts) parts.push(`completed ${counts.completed}  failed ${counts.failed}  total ${counts.total}`);
  parts.push(`polls ${p.polls}`);
  const next = p.nextPollAt ? Date.parse(p.nextPollAt) : NaN;
  if (!p.outcome && Number.isFinite(next) && next > now)
    parts.push(`next poll in ${formatSeconds((next - now) / 1000)}`);
  const windowEnd = p.windowEndsAt ? Date.parse(p.windowEndsAt) : NaN;
  if (!p.outcome && Number.isFinite(windowEnd)) parts.push(`window ends in ${formatSeconds((windowEnd - now) / 1000)}`);
  if (p.cancelRequested && !p.outcome) parts.push('cancelling');
  return parts.join('  ');
}

export function renderBatchSummary(result: unknown): string[] {
  const r = result as Partial<BatchJobResult> | undefined;
  if (!r?.outcome || !r.requestCounts) return [];
  const c = r.requestCounts;
  const lines = [`Batch ${r.outcome}: ${c.completed} completed, ${c.failed} failed, ${c.total} in all.`];
  if (r.output) lines.push(`  output       ${r.output.uri}`);
  if (r.errors) lines.push(`  errors       ${r.errors.uri}`);
  if (r.summary) lines.push(`  per request  ${r.summary.perRequestUri}`);
  return lines;
}
