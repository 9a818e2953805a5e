import { CancellationScope, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { isAttach, type ParsedBatchJobInput, type ParsedBatchJobRequestInput } from '@platform-ops/client';
import type { Activities } from './activities';
import { paidCall, summarized } from '../../workflows/activity-summary';
import { attachedNotFound } from '../../workflows/attach';
import { afterReset, HOUR_MS, untilDeadline } from '../../workflows/retry-policies';
import type { BatchProgressTracker, StartedBatch } from './workflows-run';

const CREATE_DEADLINE_MS = 6 * HOUR_MS;

export const ATTEMPT = { attemptMs: 5 * 60_000, heartbeatMs: 60_000 };

const creating = () =>
  proxyActivities<Activities>(untilDeadline(workflowInfo().startTime.getTime() + CREATE_DEADLINE_MS, ATTEMPT));

export const startBatch = (
  input: ParsedBatchJobInput,
  workflowId: string,
  progress: BatchProgressTracker,
): Promise<StartedBatch> =>
  isAttach(input) ? attachBatch(input.attach.batchId, progress) : createBatch(input, workflowId, progress);

async function createBatch(
  input: ParsedBatchJobRequestInput,
  workflowId: string,
  progress: BatchProgressTracker,
): Promise<StartedBatch> {
  // After a reset, the file an earlier run uploaded is taken (the mark, as on a paid call, without its shorter
  // attempt: a download may take minutes).
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

  progress.update({ status: 'CREATING', inputFileId });
  const create = () =>
    paidCall(
      platform.createBatchOnce,
      `create a batch for ${input.endpoint}`,
    )({ workflowId, inputFileId, endpoint: input.endpoint, metadata: input.metadata });
  // A cancel while creating waits for the create to answer, then cancels the batch it made (followToEnd):
  // cancelling the create itself would leave a batch the platform made running, unowned and paid.
  const created = await CancellationScope.nonCancellable(create);
  if (created.resumed) progress.update({ resumedFrom: created.resumed.runId });
  return { ...created, inputFileId: created.batch.inputFileId };
}

// Its window runs from its created_at, but never from later than now: the platform's clock may run ahead of ours.
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
