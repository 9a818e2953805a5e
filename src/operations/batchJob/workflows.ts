// batchJob: one LLM batch, from its input to its kept outputs, inside the platform's 48-hour window.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  BATCH_OUTCOMES,
  BatchJobInput,
  type BatchJobResult,
  type BatchJobStatus,
  type BatchObservation,
  type BatchOutcome,
  type BatchProgress,
  batchProgressQuery,
  cancelBatchUpdate,
  FailureType,
  isAttach,
  isTerminalBatchStatus,
  type ParsedBatchJobInput,
  type ParsedBatchJobRequestInput,
  parseInput,
  SearchAttributes,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, CreateBatchOnceResult } from './activities';
import { isoTime } from '../../shared/time';
import { paidCall, summarized, WAITING } from '../../workflows/activity-summary';
import { attachedNotFound } from '../../workflows/attach';
import {
  afterReset,
  DEFAULT_DEADLINE_MS,
  HOUR_MS,
  retryAsPollOptions,
  UNTIL_DONE,
  untilDeadline,
} from '../../workflows/retry-policies';
import { trackProgress } from '../../workflows/status';

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

export async function batchJob(rawInput: BatchJobInput): Promise<BatchJobResult> {
  const input: ParsedBatchJobInput = parseInput(BatchJobInput, rawInput, WorkflowType.batchJob);
  const progress = trackProgress<BatchJobStatus, BatchProgress>(
    WorkflowType.batchJob,
    { status: 'STARTING', polls: 0 },
    { memberId: input.memberId, costEstimate: input.costEstimate },
  );
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
      progress.update({ cancelRequested: true });
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
  const started = isAttach(input)
    ? await attachBatch(input.attach.batchId, progress)
    : await createBatch(input, workflowId, progress);
  const { inputFileId } = started;
  const batchId = started.batch.id;
  const windowEndsAt = started.windowStartAt + input.windowHours * HOUR_MS;
  upsertSearchAttributes([{ key: SearchAttributes.taskId, value: batchId }]);
  progress.update({ batchId, inputFileId, windowEndsAt: isoTime(windowEndsAt) });
  let last: BatchObservation = {
    batchId,
    status: started.batch.status,
    requestCounts: started.batch.requestCounts,
    polls: 0,
    observedAt: started.at,
    nextPollAt: started.at + input.polling.initialIntervalMs,
    intervalMs: input.polling.initialIntervalMs,
  };
  // The request counts' attributes change at checkpoints where the counts did.
  const onCheckpoint = (o: BatchObservation) => {
    last = o;
    const before = progress.current.requestCounts;
    const c = o.requestCounts;
    if (!before || before.total !== c.total || before.completed !== c.completed || before.failed !== c.failed) {
      upsertSearchAttributes([
        { key: SearchAttributes.requestsCompleted, value: c.completed },
        { key: SearchAttributes.requestsFailed, value: c.failed },
      ]);
    }
    const { status, requestCounts, polls } = o;
    progress.update({
      status,
      requestCounts,
      polls,
      observedAt: isoTime(o.observedAt),
      nextPollAt: isoTime(o.nextPollAt),
    });
  };
  onCheckpoint(last);
  const { pollBatch } = proxyActivities<Activities>(
    retryAsPollOptions((input.windowHours + 2) * HOUR_MS + input.graceMinutes * 60_000, { grace: false }),
  );
  /**
   * Follows the platform batch until it ends, and resolves with the terminal observation. The poll
   * activity runs again on its own after each poll (retry-as-poll, src/operations/batchJob/activities.ts)
   * and comes back only at checkpoints, a handful however long the batch takes. The window timer ends
   * the follow first: the schedule-to-close bound is only a backstop.
   */
  const followBatch = async (progressStep = PROGRESS_STEP): Promise<BatchObservation> => {
    for (;;) {
      const poll = summarized(pollBatch, `batch ${batchId}: ${WAITING}`);
      const checkpoint = await poll({ batchId, polling: input.polling, since: last, progressStep });
      onCheckpoint(checkpoint.observation);
      if (checkpoint.terminal) return checkpoint.observation;
    }
  };
  /** Cancels the platform batch, then waits for CANCELLED (or whatever final state it reaches instead). */
  const cancelBatch = async () => {
    progress.update({ status: 'CANCELLING' });
    const cancelling = await summarized(cancelPlatformBatch, `cancel batch ${batchId}`)(batchId);
    last = { ...last, status: cancelling.status, requestCounts: cancelling.requestCounts };
    if (!isTerminalBatchStatus(last.status)) last = await followBatch(0);
  };

  let cancelledBy: BatchJobResult['cancelledBy'];
  try {
    // 3. Follow the batch, racing the window (a durable timer from the batch's creation, then a grace
    // period for the platform's own final state) and an operator's cancel.
    const following = new CancellationScope();
    const ended = settle(following.run(() => followBatch()));
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
      await cancelBatch();
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The workflow itself was cancelled: the platform batch must not run on, unowned.
    await CancellationScope.nonCancellable(async () => {
      await cancelBatch();
      final = last;
      progress.update({ status: 'CANCELLED', outcome: 'Cancelled' });
    });
    throw err;
  }
  final = last;

  // 4. Keep the output and error files (partial ones too), as references.
  if (final.status === 'FAILED') {
    progress.update({ status: 'FAILED' });
    throw ApplicationFailure.create({
      type: FailureType.BatchFailed,
      nonRetryable: true,
      message: `Batch ${batchId} failed on the platform (validation or the whole batch).`,
      details: [{ batchId, inputFileId, requestCounts: final.requestCounts }],
    });
  }
  // A batch we cancelled at the end of the window has expired, whatever the platform calls it.
  const endedAs = BATCH_OUTCOMES.find((o) => o.toUpperCase() === last.status);
  const outcome: BatchOutcome = cancelledBy === 'window' ? 'Expired' : (endedAs ?? 'Cancelled');
  let kept: Awaited<ReturnType<Activities['keepBatchOutputs']>> | undefined;
  if (input.keepOutputs && (final.outputFileId || final.errorFileId)) {
    progress.update({ status: 'KEEPING_OUTPUTS' });
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
      customIds: isAttach(input) ? undefined : input.requests?.map((r) => r.custom_id),
    });
  }
  progress.update({ status: outcome.toUpperCase(), outcome });
  return {
    batchId,
    ...(isAttach(input) ? { attached: true as const } : {}),
    inputFileId,
    outcome,
    status: final.status,
    cancelledBy,
    cancelReason,
    requestCounts: final.requestCounts,
    ...kept,
    createdAt: isoTime(started.batch.createdAtMs),
    windowEndsAt: isoTime(windowEndsAt),
    endedAt: isoTime(final.observedAt),
    polls: final.polls,
    createAttempts: started.attempt,
    ...(started.resumed && { resumed: [started.resumed] }),
  };
}

/** A checkpoint every 10 % of the requests: the query's counts stay fresh for a few events each. */
const PROGRESS_STEP = 10;

type BatchProgressTracker = ReturnType<typeof trackProgress<BatchJobStatus, BatchProgress>>;

/**
 * Where the batch stands when the run starts following it (`at`, real epoch ms), when its window
 * started on our clock, and the create attempts (0 for an attached batch).
 */
type StartedBatch = Pick<CreateBatchOnceResult, 'batch' | 'at' | 'windowStartAt' | 'attempt' | 'resumed'> & {
  inputFileId: string;
};

async function createBatch(
  input: ParsedBatchJobRequestInput,
  workflowId: string,
  progress: BatchProgressTracker,
): Promise<StartedBatch> {
  // 1. The input file: given, or uploaded now. After a reset, the file an earlier run uploaded is
  // taken (the mark, as on a paid call, without its shorter attempt: a download may take minutes).
  progress.update({ status: 'UPLOADING' });
  const platform = creating();
  const { mark } = afterReset();
  const inputFileId =
    input.inputFileId ??
    (
      await summarized(
        platform.uploadBatchInput,
        `upload the batch input for ${input.endpoint}`,
      )(
        input.requests
          ? { endpoint: input.endpoint, requests: input.requests, ...mark }
          : { endpoint: input.endpoint, inputFileUri: input.inputFileUri!, ...mark },
      )
    ).fileId;

  // 2. The batch, created once. Costs money. Retried while the first attempt may still be in flight?
  // Never by the server: an attempt outlives the client's timeout. A retry looks for the batch an
  // earlier attempt made until no create it sent can still land, and creates only if there is none
  // (src/operations/batchJob/activities.ts).
  progress.update({ status: 'CREATING', inputFileId });
  // After a reset, the batch an earlier run's same create made is taken (src/activities/earlier-runs.ts).
  const create = () =>
    paidCall(
      platform.createBatchOnce,
      `create a batch for ${input.endpoint}`,
    )({ workflowId, inputFileId, endpoint: input.endpoint, metadata: input.metadata });
  // A cancel while creating waits for the create to answer, then cancels the batch it made (below):
  // cancelling the create itself would leave a batch the platform made running, unowned and paid.
  const created = await CancellationScope.nonCancellable(create);
  if (created.resumed) progress.update({ resumedFrom: created.resumed.runId });
  return { ...created, inputFileId: created.batch.inputFileId };
}

/**
 * A batch created elsewhere: read once (nothing is uploaded or created, nothing paid is sent), then
 * followed, windowed and kept as one created here. Its window runs from its created_at, but never
 * from later than now: the platform's clock may run ahead of ours (an emulator's does).
 */
async function attachBatch(batchId: string, progress: BatchProgressTracker): Promise<StartedBatch> {
  progress.update({ status: 'ATTACHING', batchId });
  let got;
  try {
    got = await summarized(creating().getPlatformBatch, `read batch ${batchId} to attach to it`)(batchId);
  } catch (err) {
    const missing = attachedNotFound(err, 'batch', batchId);
    if (missing) progress.update({ status: 'FAILED' });
    throw missing ?? err;
  }
  const { batch, at } = got;
  return { inputFileId: batch.inputFileId, batch, at, windowStartAt: Math.min(batch.createdAtMs, at), attempt: 0 };
}

// Versioning (docs/versioning.md): a run lives long, so it moves to the current build; changes use patched().
setVersioningBehavior('AUTO_UPGRADE', batchJob);
