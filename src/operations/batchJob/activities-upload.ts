// An upload costs nothing: a retry that uploads again leaves at worst an unused file the platform deletes.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  BATCH_MAX_BYTES,
  type BatchEndpoint,
  type BatchInputLine,
  batchInputProblems,
  FailureType,
  formatIssues,
  jsonlLines,
  toJsonl,
  utf8Length,
} from '@platform-ops/client';
import { download, isTransientStatus } from '../../fetching/guarded-fetch';
import { localFileRefusal, type FetchPolicy } from '../../fetching/policy';
import type { PlatformClient } from '../../platform-client/client';
import { answerPaidCall, earlierPaidCall, type AfterReset } from '../../activities/earlier-runs';

export type UploadBatchInputInput =
  | { endpoint: BatchEndpoint; requests: BatchInputLine[]; filename?: string }
  | { endpoint: BatchEndpoint; inputFileUri: string; filename?: string };

export interface UploadBatchInputResult {
  fileId: string;
  bytes: number;
  totalRequests: number;
}

const DEFAULT_FILENAME = 'batch-input.jsonl';
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

const invalidInput = (message: string, ...details: unknown[]) =>
  ApplicationFailure.nonRetryable(message, FailureType.InvalidInput, ...details);

const tooLarge = (where: string, bytes: number) =>
  invalidInput(`inputFileUri: ${where} must be at most 100 MB (is ${(bytes / 2 ** 20).toFixed(1)} MB)`);

export function createBatchUploadActivities(platform: PlatformClient, policy: FetchPolicy, temporal: Client) {
  return {
    async uploadBatchInput({
      afterReset,
      ...input
    }: UploadBatchInputInput & AfterReset): Promise<UploadBatchInputResult> {
      const ctx = Context.current();
      const earlier = afterReset
        ? await earlierPaidCall<UploadBatchInputInput, UploadBatchInputResult>(temporal, ctx)
        : undefined;
      if (earlier?.outcome === 'answered') return answerPaidCall(temporal, ctx, earlier.result!);
      const signal = ctx.cancellationSignal;
      const source = 'requests' in input ? 'requests' : 'inputFileUri';
      const jsonl = 'requests' in input ? toJsonl(input.requests) : await readInputUri(ctx, input.inputFileUri, policy);
      const problems = batchInputProblems(jsonl, input.endpoint);
      if (problems.length > 0) throw invalidInput(`${source}: ${formatIssues(problems)}`, { source, issues: problems });
      ctx.heartbeat({ step: 'uploading', bytes: utf8Length(jsonl) });
      const file = await platform.uploadBatchInputFile(
        { content: jsonl, endpoint: input.endpoint, filename: input.filename ?? filenameOf(input) },
        { signal },
      );
      return answerPaidCall(temporal, ctx, {
        fileId: file.id,
        bytes: file.bytes ?? utf8Length(jsonl),
        totalRequests: file.metadata?.total_requests ?? jsonlLines(jsonl).length,
      });
    },
  };
}

function filenameOf(input: UploadBatchInputInput): string {
  if (!('inputFileUri' in input)) return DEFAULT_FILENAME;
  if (!URL.canParse(input.inputFileUri)) return DEFAULT_FILENAME;
  const name = path.posix.basename(new URL(input.inputFileUri).pathname);
  return /^[A-Za-z0-9._-]{1,200}$/.test(name) && !/^\.+$/.test(name) ? name : DEFAULT_FILENAME;
}

async function readInputUri(ctx: Context, uri: string, policy: FetchPolicy): Promise<string> {
  if (!URL.canParse(uri)) throw invalidInput(`inputFileUri: ${JSON.stringify(uri.slice(0, 200))} is not a URL`);
  const url = new URL(uri);
  if (url.protocol === 'file:') return readLocalFile(ctx, url, policy);
  if (url.protocol === 'http:' || url.protocol === 'https:') return fetchInputFile(ctx, url, policy);
  throw invalidInput(`inputFileUri: must be a file://, http:// or https:// URL (is ${url.protocol})`);
}

const BAD_PATH_CODES = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EISDIR', 'ELOOP', 'ENAMETOOLONG']);

async function readLocalFile(ctx: Context, url: URL, policy: FetchPolicy): Promise<string> {
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch (err) {
    throw invalidInput(`inputFileUri: ${url.href} is not a local file path (${(err as Error).message})`);
  }
  // Inside INPUT_FILE_DIR by its path, and again once links are resolved (a link may point anywhere).
  const outside = localFileRefusal(file, policy);
  if (outside) throw invalidInput(`inputFileUri: ${outside}`);
  try {
    const real = await realpath(file);
    const linkedOut = localFileRefusal(real, { ...policy, inputFileDir: await realpath(policy.inputFileDir) });
    if (linkedOut) throw invalidInput(`inputFileUri: ${file} links to a file outside INPUT_FILE_DIR`);
    const info = await stat(real);
    if (!info.isFile()) throw invalidInput(`inputFileUri: ${file} is not a regular file`);
    if (info.size > BATCH_MAX_BYTES) throw tooLarge(file, info.size);
    return await readFile(real, { encoding: 'utf8', signal: ctx.cancellationSignal });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code && BAD_PATH_CODES.has(code)) throw invalidInput(`inputFileUri: ${file} cannot be read (${code})`);
    // Anything else (EIO, a volume briefly gone, cancellation) stays as it is: a retry may succeed.
    throw err;
  }
}

async function fetchInputFile(ctx: Context, url: URL, policy: FetchPolicy): Promise<string> {
  const where = `${url.origin}${url.pathname}`;
  const unavailable = (what: string) =>
    ApplicationFailure.retryable(
      `inputFileUri: ${where} could not be read yet: ${what}`,
      FailureType.PlatformUnavailable,
    );
  const dl = await download(
    url,
    policy,
    {
      signal: ctx.cancellationSignal,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      maxBytes: BATCH_MAX_BYTES,
      progress: (bytes) => ctx.heartbeat({ step: 'downloading', bytes }),
    },
    {
      refused: (why) => invalidInput(`inputFileUri: ${why}`),
      answered: (status) =>
        isTransientStatus(status)
          ? unavailable(`it answered HTTP ${status}`)
          : invalidInput(`inputFileUri: ${where} answered HTTP ${status}`),
      tooLarge: (bytes) => tooLarge(where, bytes),
      failed: unavailable,
    },
  );
  const chunks: Uint8Array[] = [];
  for await (const chunk of dl.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
