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
  // An operator's cancel: refused once the batch has ended; answered with the final state.
  setHandler(cancelBatchUpdate, ({ reason }) => run.requestCancel(reason), {
    validator: (_request: { reason?: string }) => run.refuseCancelOnceEnded(),
  });

  // 1–2. The batch: created here (upload, then create once), or created elsewhere and attached to.
  run.begin(await startBatch(input, run.workflowId, run.progress));
  // 3. Follow it until it ends, its window closes, or an operator cancels it.
  const final = await followToEnd(run);
  // 4. Keep its output and error files, and answer how it ended.
  return finishBatch(run, final);
}

// Versioning (docs/versioning.md): a run lives long, so it moves to the current build; changes use patched().
setVersioningBehavior('AUTO_UPGRADE', batchJob);
