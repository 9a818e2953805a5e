// mediaGeneration: one v3 async generation (image-to-video, text-to-video, or any registry model
// through the "async" form), from submit to kept outputs.
import { ApplicationFailure, setHandler, workflowInfo } from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import { mediaProgressQuery, taskCallbackSignal } from './contract';
import { statusQuery } from '../../api/contract';
import { WorkflowType } from '../operations';
import {
  isMediaAttach,
  MediaGenerationInput,
  type MediaGenerationResult,
  type ParsedMediaGenerationInput,
  type ParsedMediaGenerationRequestInput,
  type SubmissionAttempt,
} from './contract';
import { parseInput } from '../../api/failures';
import { followAttachedTask } from './attach';
import { TaskCallbackInbox } from './callback-inbox';
import { costFacts } from './cost';
import { modelFacts } from './model';
import { keepOutputs, outputUrlsOf } from './outputs';
import { trackMediaProgress, type MediaProgressTracker } from './progress';
import { submitGeneration } from './submit';
import { recordTaskPolls } from './task-metrics';
import { waitForTaskEnd } from './wait';
import { isoTime } from '../../shared/time';

export async function mediaGeneration(rawInput: MediaGenerationInput): Promise<MediaGenerationResult> {
  const input: ParsedMediaGenerationInput = parseInput(MediaGenerationInput, rawInput, WorkflowType.mediaGeneration);
  const progress = trackMediaProgress(input);
  setHandler(statusQuery, () => progress.status.current);
  setHandler(mediaProgressQuery, () => progress.current);
  // Task ends told by the platform's callback (webhook receiver); the wait below wakes on them.
  const callbacks = new TaskCallbackInbox();
  setHandler(taskCallbackSignal, (end) => void callbacks.add(end));
  const deadlineAt = workflowInfo().startTime.getTime() + input.deadlineSeconds * 1000;
  // A task submitted elsewhere: no submit, the same wait and keep. (Only new inputs take this branch:
  // no recorded run has an `attach`, so the request path's commands are unchanged.)
  if (isMediaAttach(input)) return followAttachedTask(input, progress, deadlineAt);
  return generate(input, progress, callbacks, deadlineAt);
}

async function generate(
  input: ParsedMediaGenerationRequestInput,
  progress: MediaProgressTracker,
  callbacks: TaskCallbackInbox,
  deadlineAt: number,
): Promise<MediaGenerationResult> {
  const submissions: SubmissionAttempt[] = [];
  const generations: MediaGenerationResult['generations'] = [];
  let polls = 0;

  for (let generation = 1; ; generation++) {
    // 1. Submit, at most once.
    progress.submitting(generation, submissions.length);
    const {
      taskId,
      submittedAt,
      firstLook,
      uncountedPolls = 0,
      callback,
    } = await submitGeneration(
      input,
      generation,
      submissions,
      () => progress.submitting(generation, submissions.length),
      deadlineAt,
    );
    // Every task-result request counts: the submit's look is this task's first poll.
    const pollsBefore = polls + uncountedPolls;
    progress.submitted(taskId, submissions.length, firstLook, pollsBefore);

    // 2. Wait for the end, polling by the platform's eta and progress, from the submit's first look;
    // with a callback URL on the submit, for the callback, polling only as a safety net.
    const end = await waitForTaskEnd(
      taskId,
      input.polling,
      deadlineAt,
      (o) => progress.observed(o, pollsBefore),
      firstLook,
      callback && { inbox: callbacks, fallback: callback },
    );
    const done = end.observation;
    polls = pollsBefore + done.polls;
    recordTaskPolls(uncountedPolls + done.polls, {
      operation: input.operation,
      webhook: callback !== undefined,
      endedBy: callbacks.endOf(taskId) ? 'callback' : 'poll',
    });
    generations.push({
      generation,
      taskId,
      status: done.status,
      reason: done.reason,
      polls: uncountedPolls + done.polls,
    });

    // 3. A failed task: generate again if the reason is worth it.
    if (done.status !== 'TASK_STATUS_SUCCEED') {
      const reason = done.reason ?? 'no reason given';
      const final = input.regeneration.nonRetryableReasons.includes(reason);
      if (final || generation > input.regeneration.maxRegenerations) {
        progress.set('FAILED');
        throw ApplicationFailure.create({
          type: FailureType.GenerationFailed,
          nonRetryable: true,
          message:
            `Task ${taskId} failed: ${reason}` +
            (final ? ' (not worth generating again)' : ` (after ${generation} generations)`),
          details: [{ reason, taskId, generations, submissions }],
        });
      }
      continue;
    }

    // 4. Keep the outputs before their URLs expire.
    const outputs = await keepOutputs(input, taskId, end, progress);
    progress.set('SUCCEEDED');

    return {
      operation: input.operation,
      model: modelFacts(input, end.outputs),
      taskId,
      outputs,
      outputUrls: outputUrlsOf(input, end),
      timings: {
        submittedAt: isoTime(submittedAt),
        firstProcessingAt: done.firstProcessingAt === undefined ? undefined : isoTime(done.firstProcessingAt),
        doneAt: isoTime(done.observedAt),
      },
      polls,
      generations,
      submissions,
      possibleDuplicates: submissions.filter((s) => s.outcome === 'accepted' && s.possibleDuplicate).length,
      cost: costFacts(end.outputs, end.nsfwDetection),
    };
  }
}
