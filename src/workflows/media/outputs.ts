// Keeping a finished task's outputs before their URLs expire: the same for a task this run submitted
// and for one it attached to.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { MediaGenerationResult } from './contract';
import type { Activities, TaskCheckpoint } from '../../activities/media/activities';
import type { MediaProgressTracker } from './progress';
import { DEFAULT_DEADLINE_MS, untilDeadline } from '../retry-policies';
import { summarized } from '../activity-summary';

/** Keeping outputs: retried until they are kept or their URLs expire (OutputExpired ends it). */
const keeper = () =>
  proxyActivities<Activities>(
    untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, { attemptMs: 10 * 60_000, heartbeatMs: 60_000 }),
  );

export async function keepOutputs(
  input: { keepOutputs: boolean },
  taskId: string,
  end: TaskCheckpoint,
  progress: MediaProgressTracker,
): Promise<MediaGenerationResult['outputs']> {
  if (!input.keepOutputs || end.outputs.length === 0) return [];
  progress.set('KEEPING_OUTPUTS');
  const outputs = await summarized(
    keeper().keepTaskOutputs,
    `keep ${end.outputs.length} outputs of task ${taskId}`,
  )({
    workflowId: workflowInfo().workflowId,
    taskId,
    outputs: end.outputs,
    seenDoneAt: end.observation.observedAt,
  });
  progress.kept(outputs.map((o) => ({ kind: o.kind, uri: o.kept.uri })));
  return outputs;
}

/** The outputs reported but not copied (keepOutputs false): their URLs expire. */
export function outputUrlsOf(
  input: { keepOutputs: boolean },
  end: TaskCheckpoint,
): MediaGenerationResult['outputUrls'] {
  return input.keepOutputs ? [] : end.outputs.map((o) => ({ kind: o.kind, url: o.url, ttlSeconds: o.ttlSeconds }));
}
