// keepTaskOutputs: copies a finished task's outputs (videos, images, audios) into the artifact store
// before their URLs run out. Output URLs can be third-party CDNs or presigned links: they are fetched
// with no credentials at all (the platform API key never leaves the platform client), and only their
// origin and path ever reach a message, a log line or failure details (query strings carry tokens).
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../api/failures';
import { KeptOutput, type TaskOutputRef } from '../workflows/media/contract';
import type { ArtifactStore, StoredArtifact } from '../artifacts';
import { safeSegment } from '../artifacts/segment';
import { guardedFetch } from '../fetching/guarded-fetch';
import { FetchRefusedError, type FetchPolicy } from '../fetching/policy';
import { isoTime } from '../shared/time';
import { recordOutputKept } from '../metrics/work';

export interface KeepTaskOutputsInput {
  workflowId: string;
  taskId: string;
  outputs: TaskOutputRef[];
  /** real epoch ms when the task was first seen finished: TTLs count from there */
  seenDoneAt: number;
}

/** What each heartbeat carries: the file in flight, and the copies made so far (a retry skips them). */
interface KeepOutputsProgress {
  file: number;
  bytes: number;
  kept: KeptOutput[];
}

/** Per file. Outputs are small: this only ends a transfer that stalls or crawls. */
const FILE_TIMEOUT_MS = 5 * 60_000;
/** Heartbeats while bytes flow; a stalled transfer stops heartbeating, so the heartbeat timeout notices. */
const HEARTBEAT_EVERY_MS = 1_000;
/** The URL is gone for good: presigned links answer 403 once expired (S3), the platform 410. */
const GONE_STATUSES: ReadonlySet<number> = new Set([403, 404, 410]);
/** Answers worth another attempt: the server is busy or briefly broken. */
const isTransientStatus = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

/** One output being copied, with everything its messages need. */
interface OutputJob {
  index: number;
  ref: TaskOutputRef;
  taskId: string;
  url: URL;
  /** origin + path: safe to print. */
  where: string;
  key: string;
  seenDoneAt: number;
  expiresAtMs?: number;
}

export function createOutputActivities(store: ArtifactStore, policy: FetchPolicy) {
  return {
    async keepTaskOutputs(input: KeepTaskOutputsInput): Promise<KeptOutput[]> {
      const ctx = Context.current();
      const kept = resumedCopies(ctx.info.heartbeatDetails, input.outputs);
      for (let index = kept.length; index < input.outputs.length; index++) {
        const job = outputJob(input, index);
        ctx.heartbeat({ file: index, bytes: 0, kept } satisfies KeepOutputsProgress);
        kept.push(await keepOne(ctx, { store, policy }, job, kept));
        recordOutputKept(job.ref.kind, kept[index].kept.bytes);
        ctx.heartbeat({ file: index, bytes: kept[index].kept.bytes, kept } satisfies KeepOutputsProgress);
      }
      return kept;
    },
  };
}

/**
 * The copies an earlier attempt of this activity already made (from its last heartbeat). Skipping them
 * matters: by the time of a retry, the URL of a file already copied may have expired.
 */
function resumedCopies(details: unknown, outputs: TaskOutputRef[]): KeptOutput[] {
  const parsed = z.object({ kept: z.array(KeptOutput) }).safeParse(details);
  if (!parsed.success) return [];
  const resumed: KeptOutput[] = [];
  for (const [i, copy] of parsed.data.kept.entries()) {
    const ref = outputs[i];
    if (!ref || ref.url !== copy.originalUrl || ref.kind !== copy.kind) break;
    resumed.push(copy);
  }
  return resumed;
}

function outputJob(input: KeepTaskOutputsInput, index: number): OutputJob {
  const ref = input.outputs[index];
  const url = parseOutputUrl(ref, index, input.taskId);
  const ttl = ref.ttlSeconds;
  return {
    index,
    ref,
    taskId: input.taskId,
    url,
    where: `${url.origin}${url.pathname}`,
    key: `media/${safeSegment(input.workflowId)}/${safeSegment(input.taskId)}/${index}-${ref.kind}.${extensionOf(ref, url)}`,
    seenDoneAt: input.seenDoneAt,
    expiresAtMs: ttl !== undefined && Number.isFinite(ttl) ? input.seenDoneAt + ttl * 1000 : undefined,
  };
}

function parseOutputUrl(ref: TaskOutputRef, index: number, taskId: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(ref.url);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return url;
  const shown = ref.url.split(/[?#]/)[0].slice(0, 200);
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `${ref.kind} output ${index + 1} of task ${taskId} has no usable URL (${JSON.stringify(shown)} is not an http(s) URL)`,
  });
}

/** From the platform's type (mp4, jpeg, or a MIME type), else the URL's file name, else bin. */
function extensionOf(ref: Pick<TaskOutputRef, 'type'>, url: URL): string {
  const fromType = ref.type?.split('/').pop()?.trim().toLowerCase();
  if (fromType && /^[a-z0-9]{1,10}$/.test(fromType)) return fromType;
  const fromPath = /\.([A-Za-z0-9]{1,10})$/.exec(url.pathname.split('/').pop() ?? '');
  return fromPath ? fromPath[1].toLowerCase() : 'bin';
}

/** Marks an error that came from reading the download (not from writing the copy). */
class DownloadError extends Error {
  constructor(readonly original: unknown) {
    super('download interrupted');
  }
}

async function keepOne(
  ctx: Context,
  { store, policy }: { store: ArtifactStore; policy: FetchPolicy },
  job: OutputJob,
  kept: KeptOutput[],
): Promise<KeptOutput> {
  const timeout = AbortSignal.timeout(FILE_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.cancellationSignal, timeout]);
  // Why download failed, for the failure: cancellation wins, then the per-file timeout, then the error.
  const failed = (err: unknown): unknown => {
    if (ctx.cancellationSignal.aborted) return ctx.cancellationSignal.reason;
    const what = timeout.aborted
      ? `the download did not finish within ${FILE_TIMEOUT_MS / 1000} s`
      : `the download failed (${describeError(err, job)})`;
    return copyFailure(job, what);
  };

  let response: Response;
  try {
    // No headers of ours: no Authorization, no API key (the URL itself is the credential).
    response = await guardedFetch(job.url, policy, signal);
  } catch (err) {
    if (err instanceof FetchRefusedError) throw refusedCopy(job, err.message);
    throw failed(err);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw copyFailure(job, `its URL answered HTTP ${response.status}`, response.status);
  }

  const tooLarge = `it is larger than DOWNLOAD_MAX_MB (${policy.maxDownloadBytes / 2 ** 20} MB)`;
  if (Number(response.headers.get('content-length') ?? 0) > policy.maxDownloadBytes) {
    await response.body.cancel().catch(() => undefined);
    throw refusedCopy(job, tooLarge);
  }
  let bytes = 0;
  let lastBeat = Date.now();
  const body = response.body as AsyncIterable<Uint8Array>;
  const download = async function* (): AsyncIterable<Uint8Array> {
    try {
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        // Counted as it comes: a missing or false Content-Length does not get past the cap.
        if (bytes > policy.maxDownloadBytes) throw refusedCopy(job, tooLarge);
        if (Date.now() - lastBeat >= HEARTBEAT_EVERY_MS) {
          lastBeat = Date.now();
          ctx.heartbeat({ file: job.index, bytes, kept } satisfies KeepOutputsProgress);
        }
        yield chunk;
      }
    } catch (err) {
      throw err instanceof ApplicationFailure ? err : new DownloadError(err);
    }
  };

  const contentType = response.headers.get('content-type') ?? undefined;
  let stored: StoredArtifact;
  try {
    stored = await store.put(job.key, download(), { contentType, signal });
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    // A failure to write the copy (disk full, permissions) is ours, not the URL's: it stays as it is.
    if (err instanceof DownloadError || signal.aborted) throw failed(err instanceof DownloadError ? err.original : err);
    throw err;
  }
  log.info('Kept task output', {
    taskId: job.taskId,
    index: job.index,
    kind: job.ref.kind,
    from: job.where,
    key: job.key,
    uri: stored.uri,
    bytes: stored.bytes,
    sha256: stored.sha256,
  });
  return {
    kind: job.ref.kind,
    originalUrl: job.ref.url,
    ttlSeconds: job.ref.ttlSeconds,
    expiresAt: job.expiresAtMs === undefined ? undefined : isoTime(job.expiresAtMs),
    kept: stored,
  };
}

/**
 * The failure for an output that could not be copied: OutputExpired (final) when the URL says it is
 * gone or its TTL has run out; PlatformRejected (final) for another refusal; else PlatformUnavailable,
 * which the workflow's retry policy retries.
 */
function copyFailure(job: OutputJob, what: string, status?: number): ApplicationFailure {
  const now = Date.now();
  const expired = job.expiresAtMs !== undefined && now >= job.expiresAtMs;
  const subject = `${job.ref.kind} output ${job.index + 1} of task ${job.taskId} (${job.where})`;
  const details = [
    {
      taskId: job.taskId,
      index: job.index,
      kind: job.ref.kind,
      url: job.where,
      key: job.key,
      status,
      ttlSeconds: job.ref.ttlSeconds,
      seenDoneAt: isoTime(job.seenDoneAt),
      expiresAt: job.expiresAtMs === undefined ? undefined : isoTime(job.expiresAtMs),
      at: isoTime(now),
    },
  ];
  if ((status !== undefined && GONE_STATUSES.has(status)) || expired) {
    return ApplicationFailure.create({
      type: FailureType.OutputExpired,
      nonRetryable: true,
      message: `${subject} could not be copied: ${what} at ${isoTime(now)}; ${ttlFacts(job, now)}`,
      details,
    });
  }
  if (status !== undefined && !isTransientStatus(status)) {
    return ApplicationFailure.create({
      type: FailureType.PlatformRejected,
      nonRetryable: true,
      message: `${subject} could not be copied: ${what} at ${isoTime(now)}, which another attempt would not change`,
      details,
    });
  }
  const until = job.expiresAtMs === undefined ? '' : ` (its TTL runs out at ${isoTime(job.expiresAtMs)})`;
  return ApplicationFailure.create({
    type: FailureType.PlatformUnavailable,
    nonRetryable: false,
    message: `${subject} could not be copied yet: ${what} at ${isoTime(now)}; trying again${until}`,
    details,
  });
}

/** An output the worker's fetch policy will not download (host, redirect, size): final. */
function refusedCopy(job: OutputJob, why: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.PlatformRejected,
    nonRetryable: true,
    message: `${job.ref.kind} output ${job.index + 1} of task ${job.taskId} (${job.where}) was not copied: ${why}`,
    details: [{ taskId: job.taskId, index: job.index, kind: job.ref.kind, url: job.where, key: job.key }],
  });
}

function ttlFacts(job: OutputJob, now: number): string {
  const ttl = job.ref.ttlSeconds;
  if (ttl === undefined || job.expiresAtMs === undefined) return 'the platform gave no TTL for it';
  const counted = `counted from when the task was seen done at ${isoTime(job.seenDoneAt)}`;
  if (now >= job.expiresAtMs) return `its TTL of ${ttl} s ran out at ${isoTime(job.expiresAtMs)} (${counted})`;
  // The platform counts from the task's own end, which comes before anyone sees it: it can expire first.
  return `its TTL of ${ttl} s would run out at ${isoTime(job.expiresAtMs)} (${counted}), so the platform expired it earlier`;
}

/** A short reason for a fetch or stream error, with the URL's query string taken out in case it is echoed. */
function describeError(err: unknown, job: OutputJob): string {
  // Duck-typed: fetch's errors can come from another realm (jest's sandbox), where instanceof fails.
  const e = asErrorLike(err);
  const cause = asErrorLike(e.cause);
  const text = `${e.name ?? 'Error'}: ${e.message ?? String(err)}${cause.message ? `: ${cause.code ?? cause.message}` : ''}`;
  return job.url.search ? text.split(job.url.search).join('') : text;
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  cause?: unknown;
}
const asErrorLike = (value: unknown): ErrorLike => (typeof value === 'object' && value !== null ? value : {});
