import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { FailureType, isAttach, type BatchJobResult, type BatchObservation } from '@platform-ops/client';
import type { Activities } from './activities';
import { summarized } from '../../workflows/activity-summary';
import { DEFAULT_DEADLINE_MS, untilDeadline } from '../../workflows/retry-policies';
import type { BatchRun, KeptOutputs } from './workflows-run';
import { ATTEMPT } from './workflows-start';

export async function finishBatch(run: BatchRun, final: BatchObservation): Promise<BatchJobResult> {
  const { batchId, input, progress } = run;
  if (final.status === 'FAILED') {
    progress.update({ status: 'FAILED' });
    throw ApplicationFailure.create({
      type: FailureType.BatchFailed,
      nonRetryable: true,
      message: `Batch ${batchId} failed on the platform (validation or the whole batch).`,
      details: [{ batchId, inputFileId: run.started.inputFileId, requestCounts: final.requestCounts }],
    });
  }
  const outcome = run.outcome();
  const kept =
    input.keepOutputs && (final.outputFileId || final.errorFileId) ? await keepOutputs(run, final) : undefined;
  progress.update({ status: outcome.toUpperCase(), outcome });
  return run.result(final, outcome, kept);
}

function keepOutputs(run: BatchRun, final: BatchObservation): Promise<KeptOutputs> {
  const { batchId, input } = run;
  run.progress.update({ status: 'KEEPING_OUTPUTS' });
  const keeping = proxyActivities<Activities>(untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, ATTEMPT));
  return summarized(
    keeping.keepBatchOutputs,
    `keep the outputs of batch ${batchId}`,
  )({
    workflowId: run.workflowId,
    batchId,
    outputFileId: final.outputFileId,
    errorFileId: final.errorFileId,
    // Inline requests are already in the history; their ids let a request with no line count as failed.
    customIds: isAttach(input) ? undefined : input.requests?.map((r) => r.custom_id),
  });
}
