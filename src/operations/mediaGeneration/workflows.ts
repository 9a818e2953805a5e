// mediaGeneration: one v3 async generation, from submit to kept outputs; or, with `attach`, a task submitted
// elsewhere followed to its end the same way, with nothing paid sent (src/operations/mediaGeneration/README.md).
import { setHandler } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  isAttach,
  MediaGenerationInput,
  type MediaGenerationResult,
  mediaProgressQuery,
  parseInput,
  statusQuery,
  taskCallbackSignal,
  WorkflowType,
} from '@platform-ops/client';
import { MediaRun, type Sent } from './workflows-run';

export async function mediaGeneration(rawInput: MediaGenerationInput): Promise<MediaGenerationResult> {
  const input = parseInput(MediaGenerationInput, rawInput, WorkflowType.mediaGeneration);
  const run = new MediaRun(input);
  setHandler(statusQuery, () => run.progress.status.current);
  setHandler(mediaProgressQuery, () => run.progress.current);
  setHandler(taskCallbackSignal, (end) => void run.callbacks.add(end));
  for (let generation = 1; ; generation++) {
    const sent: Sent = isAttach(input) ? { taskId: input.attach.taskId } : await run.submit(input, generation);
    const end = await run.waitForEnd(sent, generation);
    if (end.observation.status !== 'TASK_STATUS_SUCCEED') {
      run.failed(sent.taskId, end.observation, generation);
      continue;
    }
    const outputs = run.keepsOutputs(end) ? await run.keepOutputs(sent.taskId, end) : [];
    return run.succeeded(sent, end, outputs);
  }
}

// A run is short, so it finishes on the build it started on (docs/versioning.md).
setVersioningBehavior('PINNED', mediaGeneration);
