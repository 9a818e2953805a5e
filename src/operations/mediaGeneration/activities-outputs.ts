// keepTaskOutputs: copies a finished task's outputs into the artifact store before their URLs run out. The URL
// is the credential (a CDN or presigned link): fetched with no API key, and only its origin is ever printed.
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType, KeptOutput, type TaskOutputRef } from '@platform-ops/client';
import { safeSegment, type ArtifactStore, type StoredArtifact } from '../../artifacts';
import { download, isTransientStatus } from '../../fetching/guarded-fetch';
import type { FetchPolicy } from '../../fetching/policy';
import { isoTime } from '../../shared/time';
import { recordOutputKept } from '../../metrics';

export interface KeepTaskOutputsInput {
  workflowId: string;
  taskId: string;
  outputs: TaskOutputRef[];
  /** When the task was first seen finished: TTLs count from there. */
  seenDoneAt: number;
}

/** Per file: outputs are small, so this only ends a transfer that stalls or crawls. */
const FILE_TIMEOUT_MS = 5 * 60_000;
/** The URL is gone for good: presigned links answer 403 once expired (S3), the platform 410. */
const GONE_STATUSES: ReadonlySet<number> = new Set([403, 404, 410]);

export function createOutputActivities(store: ArtifactStore, policy: FetchPolicy) {
  return {
    async keepTaskOutputs(input: KeepTaskOutputsInput): Promise<KeptOutput[]> {
      const ctx = Context.current();
      const kept = resumedCopies(ctx.info.heartbeatDetails, input.outputs);
      for (let index = kept.length; index < input.outputs.length; index++) {
        const job = outputJob(input, index);
        // The file in flight, and the copies made so far (a retry skips them).
        const beat = (bytes: number) => ctx.heartbeat({ file: index, bytes, kept });
        beat(0);
        kept.push(await keepOne(ctx, store, policy, job, beat));
        recordOutputKept(job.ref.kind, kept[index].kept.bytes);
        beat(kept[index].kept.bytes);
      }
      return kept;
    },
  };
}

/** The copies an earlier attempt made (its last heartbeat): by a retry, their URLs may have expired. */
function resumedCopies(details: unknown, outputs: TaskOutputRef[]): KeptOutput[] {
  const parsed = z.object({ kept: z.array(KeptOutput) }).safeParse(details);
  if (!parsed.success) return [];
  const { kept } = parsed.data;
  const changed = kept.findIndex((copy, i) => outputs[i]?.url !== copy.originalUrl || outputs[i]?.kind !== copy.kind);
  return changed < 0 ? kept : kept.slice(0, changed);
}

function outputJob(input: KeepTaskOutputsInput, index: number) {
  const ref = input.outputs[index];
  const url = URL.canParse(ref.url) ? new URL(ref.url) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    const scheme = url ? JSON.stringify(url.protocol.slice(0, 20)) : 'none that parses';
    throw ApplicationFailure.nonRetryable(
      `${ref.kind} output ${index + 1} of task ${input.taskId} has no usable URL (its scheme is ${scheme}, not http(s))`,
      FailureType.InvalidInput,
    );
  }
  const { taskId, seenDoneAt } = input;
  const ttl = ref.ttlSeconds;
  const expiresAtMs = ttl !== undefined && Number.isFinite(ttl) ? seenDoneAt + ttl * 1000 : undefined;
  const where = url.origin;
  const key = `media/${safeSegment(input.workflowId)}/${safeSegment(taskId)}/${index}-${ref.kind}.${extensionOf(ref, url)}`;
  return {
    ref,
    url,
    key,
    seenDoneAt,
    expiresAtMs,
    expiresAt: expiresAtMs === undefined ? undefined : isoTime(expiresAtMs),
    subject: `${ref.kind} output ${index + 1} of task ${taskId} (${where})`,
    details: { taskId, index, kind: ref.kind, origin: where, key },
  };
}
type OutputJob = ReturnType<typeof outputJob>;

/** From the platform's type (mp4, jpeg, or a MIME type), else the URL's file name, else bin. */
function extensionOf(ref: Pick<TaskOutputRef, 'type'>, url: URL): string {
  const fromType = ref.type?.split('/').pop()?.trim().toLowerCase();
  if (fromType && /^[a-z0-9]{1,10}$/.test(fromType)) return fromType;
  const fromPath = /\.([A-Za-z0-9]{1,10})$/.exec(url.pathname.split('/').pop() ?? '');
  return fromPath ? fromPath[1].toLowerCase() : 'bin';
}

async function keepOne(
  ctx: Context,
  store: ArtifactStore,
  policy: FetchPolicy,
  job: OutputJob,
  progress: (bytes: number) => void,
): Promise<KeptOutput> {
  const refused = (why: string) =>
    ApplicationFailure.nonRetryable(`${job.subject} was not copied: ${why}`, FailureType.PlatformRejected, job.details);
  const dl = await download(
    job.url,
    policy,
    { signal: ctx.cancellationSignal, timeoutMs: FILE_TIMEOUT_MS, maxBytes: policy.maxDownloadBytes, progress },
    {
      refused,
      answered: (status) => copyFailure(job, `its URL answered HTTP ${status}`, status),
      tooLarge: () => refused(`it is larger than DOWNLOAD_MAX_MB (${policy.maxDownloadBytes / 2 ** 20} MB)`),
      failed: (what) => copyFailure(job, what),
    },
  );
  const contentType = dl.response.headers.get('content-type') ?? undefined;
  let stored: StoredArtifact;
  try {
    stored = await store.put(job.key, dl.body, { contentType, signal: dl.signal });
  } catch (err) {
    // A failure to write the copy (disk full, permissions) is ours, not the URL's: it stays as it is.
    throw err instanceof ApplicationFailure || !dl.signal.aborted ? err : dl.failed(err);
  }
  const { ref, expiresAt } = job;
  const { uri, bytes, sha256 } = stored;
  log.info('Kept task output', { ...job.details, uri, bytes, sha256 });
  return { kind: ref.kind, originalUrl: ref.url, ttlSeconds: ref.ttlSeconds, expiresAt, kept: stored };
}

function copyFailure(job: OutputJob, what: string, status?: number): ApplicationFailure {
  const now = Date.now();
  const { subject, expiresAt } = job;
  const details = {
    ...job.details,
    status,
    ttlSeconds: job.ref.ttlSeconds,
    seenDoneAt: isoTime(job.seenDoneAt),
    expiresAt,
    at: isoTime(now),
  };
  const expired = job.expiresAtMs !== undefined && now >= job.expiresAtMs;
  if ((status !== undefined && GONE_STATUSES.has(status)) || expired) {
    const message = `${subject} could not be copied: ${what} at ${isoTime(now)}; ${ttlFacts(job, now)}`;
    return ApplicationFailure.nonRetryable(message, FailureType.OutputExpired, details);
  }
  if (status !== undefined && !isTransientStatus(status)) {
    const message = `${subject} could not be copied: ${what} at ${isoTime(now)}, which another attempt would not change`;
    return ApplicationFailure.nonRetryable(message, FailureType.PlatformRejected, details);
  }
  const until = expiresAt === undefined ? '' : ` (its TTL runs out at ${expiresAt})`;
  const message = `${subject} could not be copied yet: ${what} at ${isoTime(now)}; trying again${until}`;
  return ApplicationFailure.retryable(message, FailureType.PlatformUnavailable, details);
}

function ttlFacts(job: OutputJob, now: number): string {
  const ttl = job.ref.ttlSeconds;
  if (ttl === undefined || job.expiresAtMs === undefined) return 'the platform gave no TTL for it';
  const counted = `counted from when the task was seen done at ${isoTime(job.seenDoneAt)}`;
  if (now >= job.expiresAtMs) return `its TTL of ${ttl} s ran out at ${isoTime(job.expiresAtMs)} (${counted})`;
  // The platform counts from the task's own end, which comes before anyone sees it: it can expire first.
  return `its TTL of ${ttl} s would run out at ${isoTime(job.expiresAtMs)} (${counted}), so the platform expired it earlier`;
}
