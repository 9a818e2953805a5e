// batchJob: one LLM batch, from its input to its kept outputs, inside the platform's 48-hour window.
import { setHandler } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  BatchJobInput,
  type BatchJobResult,
  batchProgressQuery,
  cancelBatchUpdate,
  type ParsedBatchJobInput,
  parseInput,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import { finishBatch } from './workflows-finish';
import { followToEnd } from './workflows-follow';
import { BatchRun } from './workflows-run';
import { startBatch } from './workflows-start';

export async function batchJob(rawInput: BatchJobInput): Promise<BatchJobResult> {
  const input: ParsedBatchJobInput = parseInput(BatchJobInput, rawInput, WorkflowType.batchJob);
  const run = new BatchRun(input);
  setHandler(statusQuery, () => run.progress.status.current);
  setHandler(batchProgressQuery, () => run.progress.current);
  setHandler(cancelBatchUpdate, ({ reason }) => run.requestCancel(reason), {
    validator: (_request: { reason?: string }) => run.refuseCancelOnceEnded(),
  });
  run.begin(await startBatch(input, run.workflowId, run.progress));
  const final = await followToEnd(run);
  return finishBatch(run, final);
}

setVersioningBehavior('AUTO_UPGRADE', batchJob);
