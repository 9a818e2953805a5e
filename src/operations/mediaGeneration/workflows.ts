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
    // 1. Submit, at most once; an attached task was submitted elsewhere, and nothing paid is sent.
    const sent: Sent = isAttach(input) ? { taskId: input.attach.taskId } : await run.submit(input, generation);
    // 2. Wait for the end by the platform's hints or its callback; a wrong attached id fails at the first poll.
    const end = await run.waitForEnd(sent, generation);
    // 3. A failed task: generate again if the reason is worth it (never an attached task: its request is unknown).
    if (end.observation.status !== 'TASK_STATUS_SUCCEED') {
      run.failed(sent.taskId, end.observation, generation);
      continue;
    }
    // 4. Keep the outputs before their URLs expire (or only report their URLs, keepOutputs false).
    const outputs = run.keepsOutputs(end) ? await run.keepOutputs(sent.taskId, end) : [];
    return run.succeeded(sent, end, outputs);
  }
}

// Versioning (docs/versioning.md): a run is short, so it finishes on the build it started on.
setVersioningBehavior('PINNED', mediaGeneration);
