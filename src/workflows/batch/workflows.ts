// batchJob: one LLM batch, from its input to its kept outputs, inside the platform's 48-hour window.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import { batchProgressQuery, cancelBatchUpdate } from './contract';
import { statusQuery } from '../../api/contract';
import { WorkflowType } from '../operations';
import {
  BatchJobInput,
  isBatchAttach,
  type BatchJobResult,
  BATCH_JOB_STATUS_BY_OUTCOME,
  type BatchObservation,
  type BatchOutcome,
  type ParsedBatchJobInput,
  type ParsedBatchJobRequestInput,
} from './contract';
import { parseInput } from '../../api/failures';
import type { Activities } from '../../activities/batch/activities';
import type { BatchSnapshot } from '../../activities/batch/activities';
import { isTerminalBatchStatus } from '../../platform/schemas/batches';
import { batchFollower } from './follow';
import { trackBatchProgress, type BatchProgressTracker } from './progress';
import { attachedNotFound } from '../attach';
import { isoTime } from '../../shared/time';
import { DEFAULT_DEADLINE_MS, HOUR_MS, UNTIL_DONE, untilDeadline } from '../retry-policies';
import { summarized } from '../activity-summary';

/** Uploading the input and creating the batch are retried this long, from the workflow's start. */
const CREATE_DEADLINE_MS = 6 * HOUR_MS;

const ATTEMPT = { attemptMs: 5 * 60_000, heartbeatMs: 60_000 };

/** Upload and create: retried through any outage until the deadline for getting the batch going. */
const creating = () =>
  proxyActivities<Activities>(untilDeadline(workflowInfo().startTime.getTime() + CREATE_DEADLINE_MS, ATTEMPT));
/**
 * Cancelling a paid batch: retried until it is done, whatever the outage, so nothing is left running
 * on the platform because a call failed. Cancelling twice is harmless (an ended batch answers its state).
 */
const { cancelPlatformBatch } = proxyActivities<Activities>(UNTIL_DONE);

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** A promise that never rejects: a race's losers (cancelled timers, say) must not go unhandled. */
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

const OUTCOME_OF: Record<string, BatchOutcome> = {
  COMPLETED: 'Completed',
  EXPIRED: 'Expired',
  CANCELLED: 'Cancelled',
};

export async function batchJob(rawInput: BatchJobInput): Promise<BatchJobResult> {
  const input: ParsedBatchJobInput = parseInput(BatchJobInput, rawInput, WorkflowType.batchJob);
  const progress = trackBatchProgress(input);
  const { workflowId } = workflowInfo();

  // An operator's cancel: refused once the batch has ended; answered with the final state.
  let cancelRequested = false;
  let cancelReason: string | undefined;
  let final: BatchObservation | undefined;

  setHandler(statusQuery, () => progress.status.current);
  setHandler(batchProgressQuery, () => progress.current);
  setHandler(
    cancelBatchUpdate,
    async ({ reason }) => {
      cancelRequested = true;
      cancelReason = reason;
      progress.note({ cancelRequested: true });
      await condition(() => final !== undefined);
      return { batchId: final!.batchId, status: final!.status, requestCounts: final!.requestCounts };
    },
    {
      validator: (_request: { reason?: string }) => {
        const status = final?.status ?? progress.current.status;
        if (final || isTerminalBatchStatus(status)) {
          throw new Error(`The batch has already finished (${status}); there is nothing to cancel.`);
        }
      },
    },
  );

  // 1–2. The batch: created here (upload, then create once), or created elsewhere and attached to.
  const started = isBatchAttach(input)
    ? await attachBatch(input.attach.batchId, progress)
    : await createBatch(input, workflowId, progress);
  const { batchId, inputFileId } = started;
  const windowEndsAt = started.windowStartAt + input.windowHours * HOUR_MS;
  progress.created(batchId, inputFileId, windowEndsAt);
  let last: BatchObservation = {
    batchId,
    status: started.batch.status,
    requestCounts: started.batch.requestCounts,
    polls: 0,
    observedAt: started.at,
    nextPollAt: started.at + input.polling.initialIntervalMs,
    intervalMs: input.polling.initialIntervalMs,
  };
  progress.observed(last, 0);
  const onCheckpoint = (o: BatchObservation) => {
    last = o;
    progress.observed(o, 0);
  };
  const followBatch = batchFollower((input.windowHours + 2) * HOUR_MS + input.graceMinutes * 60_000);

  let cancelledBy: BatchJobResult['cancelledBy'];
  try {
    // 3. Follow the batch, racing the window (a durable timer from the batch's creation, then a grace
    // period for the platform's own final state) and an operator's cancel.
    const following = new CancellationScope();
    const ended = settle(following.run(() => followBatch(batchId, input.polling, last, onCheckpoint)));
    const waits = new CancellationScope();
    const cancelAsked = settle(waits.run(() => condition(() => cancelRequested)));
    const race = async (timerMs: number) => {
      const timer = settle(waits.run(() => sleep(Math.max(1, timerMs))));
      const [why, settled] = await Promise.race([
        ended.then((r) => ['ended', r] as const),
        timer.then((r) => ['window', r] as const),
        cancelAsked.then((r) => ['update', r] as const),
      ]);
      if (!settled.ok) throw settled.error; // the workflow itself is being cancelled, or a real failure
      return why;
    };
    let why = await race(windowEndsAt - started.at);
    if (why === 'window') why = await race(input.graceMinutes * 60_000);
    waits.cancel();

    if (why === 'ended') {
      const r = await ended;
      if (!r.ok) throw r.error;
      last = r.value;
    } else {
      cancelledBy = why;
      following.cancel();
      await ended;
      progress.set('CANCELLING');
      const cancelling = await summarized(cancelPlatformBatch, `cancel batch ${batchId}`)(batchId);
      last = { ...last, status: cancelling.status, requestCounts: cancelling.requestCounts };
      // Then wait for CANCELLED (or whatever final state the platform reaches instead).
      if (!isTerminalBatchStatus(last.status)) last = await followBatch(batchId, input.polling, last, onCheckpoint, 0);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The workflow itself was cancelled: the platform batch must not run on, unowned.
    await CancellationScope.nonCancellable(async () => {
      progress.set('CANCELLING');
      const cancelling = await summarized(cancelPlatformBatch, `cancel batch ${batchId}`)(batchId);
      last = { ...last, status: cancelling.status, requestCounts: cancelling.requestCounts };
      if (!isTerminalBatchStatus(last.status)) last = await followBatch(batchId, input.polling, last, onCheckpoint, 0);
      final = last;
      progress.set('CANCELLED', { outcome: 'Cancelled' });
    });
    throw err;
  }
  final = last;

  // 4. Keep the output and error files (partial ones too), as references.
  if (final.status === 'FAILED') {
    progress.set('FAILED');
    throw ApplicationFailure.create({
      type: FailureType.BatchFailed,
      nonRetryable: true,
      message: `Batch ${batchId} failed on the platform (validation or the whole batch).`,
      details: [{ batchId, inputFileId, requestCounts: final.requestCounts }],
    });
  }
  // A batch we cancelled at the end of the window has expired, whatever the platform calls it.
  const outcome: BatchOutcome = cancelledBy === 'window' ? 'Expired' : (OUTCOME_OF[final.status] ?? 'Cancelled');
  let kept: Awaited<ReturnType<Activities['keepBatchOutputs']>> | undefined;
  if (input.keepOutputs && (final.outputFileId || final.errorFileId)) {
    progress.set('KEEPING_OUTPUTS');
    const keeping = proxyActivities<Activities>(untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, ATTEMPT));
    kept = await summarized(
      keeping.keepBatchOutputs,
      `keep the outputs of batch ${batchId}`,
    )({
      workflowId,
      batchId,
      outputFileId: final.outputFileId,
      errorFileId: final.errorFileId,
      // Inline requests are already in the history; their ids let a request with no line count as failed.
      customIds: isBatchAttach(input) ? undefined : input.requests?.map((r) => r.custom_id),
    });
  }
  progress.set(BATCH_JOB_STATUS_BY_OUTCOME[outcome], { outcome });
  return {
    batchId,
    ...(isBatchAttach(input) ? { attached: true as const } : {}),
    inputFileId,
    outcome,
    status: final.status,
    cancelledBy,
    cancelReason,
    requestCounts: final.requestCounts,
    output: kept?.output,
    errors: kept?.errors,
    summary: kept?.summary,
    createdAt: isoTime(started.batch.createdAtMs),
    windowEndsAt: isoTime(windowEndsAt),
    endedAt: isoTime(final.observedAt),
    polls: final.polls,
    createAttempts: started.attempt,
  };
}

/** Where the batch stands when the run starts following it, and when its window started on our clock. */
interface StartedBatch {
  batchId: string;
  inputFileId: string;
  batch: BatchSnapshot;
  /** Real epoch ms of the answer the batch came with. */
  at: number;
  windowStartAt: number;
  /** Create attempts (0 for an attached batch). */
  attempt: number;
}

async function createBatch(
  input: ParsedBatchJobRequestInput,
  workflowId: string,
  progress: BatchProgressTracker,
): Promise<StartedBatch> {
  // 1. The input file: given, or uploaded now.
  progress.set('UPLOADING');
  const platform = creating();
  const inputFileId =
    input.inputFileId ??
    (
      await summarized(
        platform.uploadBatchInput,
        `upload the batch input for ${input.endpoint}`,
      )(
        input.requests
          ? { endpoint: input.endpoint, requests: input.requests }
          : { endpoint: input.endpoint, inputFileUri: input.inputFileUri! },
      )
    ).fileId;

  // 2. The batch, created once. Costs money. Retried while the first attempt may still be in flight?
  // Never by the server: an attempt outlives the client's timeout. A retry looks for the batch an
  // earlier attempt made until no create it sent can still land, and creates only if there is none
  // (src/activities/batch/activities.ts).
  progress.set('CREATING', { inputFileId });
  const create = () =>
    summarized(
      platform.createBatchOnce,
      `create a batch for ${input.endpoint}`,
    )({ workflowId, inputFileId, endpoint: input.endpoint, metadata: input.metadata });
  // A cancel while creating waits for the create to answer, then cancels the batch it made (below):
  // cancelling the create itself would leave a batch the platform made running, unowned and paid.
  const created = await CancellationScope.nonCancellable(create);
  return {
    batchId: created.batch.id,
    inputFileId,
    batch: created.batch,
    at: created.at,
    windowStartAt: created.windowStartAt,
    attempt: created.attempt,
  };
}

/**
 * A batch created elsewhere: read once (nothing is uploaded or created, nothing paid is sent), then
 * followed, windowed and kept as one created here. Its window runs from its created_at, but never
 * from later than now: the platform's clock may run ahead of ours (an emulator's does).
 */
async function attachBatch(batchId: string, progress: BatchProgressTracker): Promise<StartedBatch> {
  progress.set('ATTACHING', { batchId });
  let got;
  try {
    got = await summarized(creating().getPlatformBatch, `read batch ${batchId} to attach to it`)(batchId);
  } catch (err) {
    const missing = attachedNotFound(err, 'batch', batchId);
    if (missing) progress.set('FAILED');
    throw missing ?? err;
  }
  return {
    batchId,
    inputFileId: got.batch.inputFileId,
    batch: got.batch,
    at: got.at,
    windowStartAt: Math.min(got.batch.createdAtMs, got.at),
    attempt: 0,
  };
}
