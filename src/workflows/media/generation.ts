// mediaGeneration: one v3 async generation (image-to-video, text-to-video, or any registry model
// through the "async" form), from submit to kept outputs.
import { ApplicationFailure, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import { mediaProgressQuery, statusQuery, WorkflowType } from '../../api/names';
import {
  MediaGenerationInput,
  type MediaGenerationResult,
  type ParsedMediaGenerationInput,
  type SubmissionAttempt,
} from '../../api/schemas/media';
import { parseInput } from '../../api/validate';
import type { Activities } from '../../activities';
import { costFacts } from './cost';
import { modelFacts } from './model';
import { trackMediaProgress } from './progress';
import { submitGeneration } from './submit';
import { waitForTaskEnd } from './wait';
import { isoTime } from '../../shared/time';
import { DEFAULT_DEADLINE_MS, untilDeadline } from '../retry-policies';
import { summarized } from '../activity-summary';

/** Keeping outputs: retried until they are kept or their URLs expire (OutputExpired ends it). */
const keeper = () =>
  proxyActivities<Activities>(
    untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, { attemptMs: 10 * 60_000, heartbeatMs: 60_000 }),
  );

export async function mediaGeneration(rawInput: MediaGenerationInput): Promise<MediaGenerationResult> {
  const input: ParsedMediaGenerationInput = parseInput(MediaGenerationInput, rawInput, WorkflowType.mediaGeneration);
  const progress = trackMediaProgress(input);
  setHandler(statusQuery, () => progress.status.current);
  setHandler(mediaProgressQuery, () => progress.current);
  const deadlineAt = workflowInfo().startTime.getTime() + input.deadlineSeconds * 1000;
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

    // 2. Wait for the end, polling by the platform's eta and progress, from the submit's first look.
    const end = await waitForTaskEnd(
      taskId,
      input.polling,
      deadlineAt,
      input.deadlineSeconds,
      (o) => progress.observed(o, pollsBefore),
      firstLook,
    );
    const done = end.observation;
    polls = pollsBefore + done.polls;
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
    let outputs: MediaGenerationResult['outputs'] = [];
    if (input.keepOutputs && end.outputs.length > 0) {
      progress.set('KEEPING_OUTPUTS');
      outputs = await summarized(
        keeper().keepTaskOutputs,
        `keep ${end.outputs.length} outputs of task ${taskId}`,
      )({
        workflowId: workflowInfo().workflowId,
        taskId,
        outputs: end.outputs,
        seenDoneAt: done.observedAt,
      });
      progress.kept(outputs.map((o) => ({ kind: o.kind, uri: o.kept.uri })));
    }
    progress.set('SUCCEEDED');

    return {
      operation: input.operation,
      model: modelFacts(input, end.outputs),
      taskId,
      outputs,
      outputUrls: input.keepOutputs
        ? []
        : end.outputs.map((o) => ({ kind: o.kind, url: o.url, ttlSeconds: o.ttlSeconds })),
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
