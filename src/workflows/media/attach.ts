// mediaGeneration's attach form: a task submitted elsewhere (by another system, or by hand), followed
// to its end with the same wait as a submitted task (retry-as-poll by the eta, the mediaProgress query,
// the search attributes, current details) and its outputs kept before their URLs expire. Nothing paid
// is sent: the task was paid for where it was submitted.
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import type { MediaGenerationResult, ParsedMediaAttachInput } from './contract';
import type { TaskCheckpoint } from '../../activities/media/activities';
import { isoTime } from '../../shared/time';
import { attachedNotFound } from '../attach';
import { costFacts } from './cost';
import { keepOutputs, outputUrlsOf } from './outputs';
import type { MediaProgressTracker } from './progress';
import { waitForTaskEnd } from './wait';

export async function followAttachedTask(
  input: ParsedMediaAttachInput,
  progress: MediaProgressTracker,
  deadlineAt: number,
): Promise<MediaGenerationResult> {
  const { taskId } = input.attach;
  const attachedAt = Date.now();
  let end: TaskCheckpoint;
  try {
    // No first look to start from: the first poll is made at once, and a wrong id fails there.
    end = await waitForTaskEnd(taskId, input.polling, deadlineAt, (o) => progress.observed(o, 0));
  } catch (err) {
    const missing = attachedNotFound(err, 'task', taskId);
    if (missing) progress.set('FAILED');
    throw missing ?? err;
  }
  const done = end.observation;
  const generations = [{ generation: 1, taskId, status: done.status, reason: done.reason, polls: done.polls }];
  if (done.status !== 'TASK_STATUS_SUCCEED') {
    const reason = done.reason ?? 'no reason given';
    progress.set('FAILED');
    throw ApplicationFailure.create({
      type: FailureType.GenerationFailed,
      nonRetryable: true,
      // Its request is not known here, so it cannot be generated again.
      message: `Attached task ${taskId} failed: ${reason} (an attached task is not generated again)`,
      details: [{ reason, taskId, generations }],
    });
  }

  const outputs = await keepOutputs(input, taskId, end, progress);
  progress.set('SUCCEEDED');
  return {
    attached: true,
    taskId,
    outputs,
    outputUrls: outputUrlsOf(input, end),
    timings: {
      attachedAt: isoTime(attachedAt),
      firstProcessingAt: done.firstProcessingAt === undefined ? undefined : isoTime(done.firstProcessingAt),
      doneAt: isoTime(done.observedAt),
    },
    polls: done.polls,
    generations,
    submissions: [],
    possibleDuplicates: 0,
    cost: costFacts(end.outputs, end.nsfwDetection),
  };
}
