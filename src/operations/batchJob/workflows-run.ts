import { condition, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  BATCH_OUTCOMES,
  type BatchJobResult,
  type BatchJobStatus,
  type BatchObservation,
  type BatchOutcome,
  type BatchProgress,
  type CancelBatchResult,
  isAttach,
  isTerminalBatchStatus,
  type ParsedBatchJobInput,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import { isoTime } from '../../shared/time';
import { HOUR_MS } from '../../workflows/retry-policies';
import { trackProgress } from '../../workflows/status';
import type { Activities, CreateBatchOnceResult } from './activities';

export type StartedBatch = Pick<CreateBatchOnceResult, 'batch' | 'at' | 'windowStartAt' | 'attempt' | 'resumed'> & {
  inputFileId: string;
};
export type KeptOutputs = Awaited<ReturnType<Activities['keepBatchOutputs']>>;

export type BatchProgressTracker = ReturnType<typeof trackProgress<BatchJobStatus, BatchProgress>>;

export class BatchRun {
  readonly progress: BatchProgressTracker;
  readonly workflowId: string;
  cancelRequested = false;
  cancelReason: string | undefined;
  cancelledBy: BatchJobResult['cancelledBy'];
  final: BatchObservation | undefined;
  // Set by begin(); no step runs before that.
  started!: StartedBatch;
  windowEndsAt!: number;
  last!: BatchObservation;

  constructor(readonly input: ParsedBatchJobInput) {
    this.progress = trackProgress<BatchJobStatus, BatchProgress>(
      WorkflowType.batchJob,
      { status: 'STARTING', polls: 0 },
      { memberId: input.memberId, costEstimate: input.costEstimate },
    );
    this.workflowId = workflowInfo().workflowId;
  }

  get batchId(): string {
    return this.started.batch.id;
  }

  async requestCancel(reason: string | undefined): Promise<CancelBatchResult> {
    this.cancelRequested = true;
    this.cancelReason = reason;
    this.progress.update({ cancelRequested: true });
    await condition(() => this.final !== undefined);
    const final = this.final!;
    return { batchId: final.batchId, status: final.status, requestCounts: final.requestCounts };
  }

  refuseCancelOnceEnded(): void {
    const status = this.final?.status ?? this.progress.current.status;
    if (this.final || isTerminalBatchStatus(status)) {
      throw new Error(`The batch has already finished (${status}); there is nothing to cancel.`);
    }
  }

  begin(started: StartedBatch): void {
    this.started = started;
    const { inputFileId } = started;
    const batchId = started.batch.id;
    this.windowEndsAt = started.windowStartAt + this.input.windowHours * HOUR_MS;
    upsertSearchAttributes([{ key: SearchAttributes.taskId, value: batchId }]);
    this.progress.update({ batchId, inputFileId, windowEndsAt: isoTime(this.windowEndsAt) });
    this.checkpoint({
      batchId,
      status: started.batch.status,
      requestCounts: started.batch.requestCounts,
      polls: 0,
      observedAt: started.at,
      nextPollAt: started.at + this.input.polling.initialIntervalMs,
      intervalMs: this.input.polling.initialIntervalMs,
    });
  }

  checkpoint(o: BatchObservation): void {
    this.last = o;
    const before = this.progress.current.requestCounts;
    const c = o.requestCounts;
    if (!before || before.total !== c.total || before.completed !== c.completed || before.failed !== c.failed) {
      upsertSearchAttributes([
        { key: SearchAttributes.requestsCompleted, value: c.completed },
        { key: SearchAttributes.requestsFailed, value: c.failed },
      ]);
    }
    const { status, requestCounts, polls } = o;
    this.progress.update({
      status,
      requestCounts,
      polls,
      observedAt: isoTime(o.observedAt),
      nextPollAt: isoTime(o.nextPollAt),
    });
  }

  end(): BatchObservation {
    this.final = this.last;
    return this.final;
  }

  // One we cancelled at the end of its window has expired.
  outcome(): BatchOutcome {
    const endedAs = BATCH_OUTCOMES.find((o) => o.toUpperCase() === this.last.status);
    return this.cancelledBy === 'window' ? 'Expired' : (endedAs ?? 'Cancelled');
  }

  result(final: BatchObservation, outcome: BatchOutcome, kept: KeptOutputs | undefined): BatchJobResult {
    const { input, started } = this;
    return {
      batchId: this.batchId,
      ...(isAttach(input) ? { attached: true as const } : {}),
      inputFileId: started.inputFileId,
      outcome,
      status: final.status,
      cancelledBy: this.cancelledBy,
      cancelReason: this.cancelReason,
      requestCounts: final.requestCounts,
      ...kept,
      createdAt: isoTime(started.batch.createdAtMs),
      windowEndsAt: isoTime(this.windowEndsAt),
      endedAt: isoTime(final.observedAt),
      polls: final.polls,
      createAttempts: started.attempt,
      ...(started.resumed && { resumed: [started.resumed] }),
    };
  }
}
