// mediaGeneration: one v3 async generation (image-to-video, text-to-video, or any registry model
// through the "async" form), from submit to kept outputs; or, with `attach`, a task submitted
// elsewhere followed to its end the same way, with nothing paid sent.
import {
  ApplicationFailure,
  metricMeter,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { isAttach, SearchAttributes, statusQuery } from '../../api/contract';
import { FailureType, parseInput } from '../../api/failures';
import type { Activities, TaskCheckpoint } from '../../activities/media/activities';
import { usdText } from '../../platform/money';
import { NSFW_DETECTION_COST_PER_IMAGE } from '../../platform/schemas/media';
import { isoTime } from '../../shared/time';
import { summarized } from '../activity-summary';
import { attachedNotFound } from '../attach';
import { WorkflowType } from '../operations';
import { DEFAULT_DEADLINE_MS, untilDeadline } from '../retry-policies';
import { trackProgress } from '../status';
import { TaskCallbackInbox } from './callback-inbox';
import {
  MEDIA_STATUS_BY_TASK_STATUS,
  MediaGenerationInput,
  mediaProgressQuery,
  taskCallbackSignal,
  type MediaGenerationResult,
  type MediaGenerationStatus,
  type MediaProgress,
  type ParsedMediaAttachInput,
  type ParsedMediaGenerationInput,
  type ParsedMediaGenerationRequestInput,
  type SubmissionAttempt,
  type TaskObservation,
  type TaskOutputRef,
} from './contract';
import { resolvedModel, submitGeneration } from './submit';
import { waitForTaskEnd } from './wait';

export async function mediaGeneration(rawInput: MediaGenerationInput): Promise<MediaGenerationResult> {
  const input: ParsedMediaGenerationInput = parseInput(MediaGenerationInput, rawInput, WorkflowType.mediaGeneration);
  // An attached task is known from the start: its id goes in the first upsert, with ATTACHING.
  const taskId = isAttach(input) ? input.attach.taskId : undefined;
  const progress = trackProgress<MediaGenerationStatus, MediaProgress>(
    WorkflowType.mediaGeneration,
    {
      generation: 1,
      polls: 0,
      submissions: 0,
      status: taskId === undefined ? 'SUBMITTING' : 'ATTACHING',
      ...(taskId === undefined ? {} : { taskId }),
    },
    { memberId: input.memberId, taskId, costEstimate: input.costEstimate },
  );
  setHandler(statusQuery, () => progress.status.current);
  setHandler(mediaProgressQuery, () => progress.current);
  // Task ends told by the platform's callback (webhook receiver); the wait below wakes on them.
  const callbacks = new TaskCallbackInbox();
  setHandler(taskCallbackSignal, (end) => void callbacks.add(end));
  const deadlineAt = workflowInfo().startTime.getTime() + input.deadlineSeconds * 1000;
  if (isAttach(input)) return followAttachedTask(input, progress, deadlineAt);
  return generate(input, progress, callbacks, deadlineAt);
}

type MediaProgressTracker = ReturnType<typeof trackProgress<MediaGenerationStatus, MediaProgress>>;

/** What a poll saw, as progress: the task's status by our name, and this run's polls so far. */
const observed = (o: TaskObservation, pollsBefore: number): Partial<MediaProgress> => ({
  status: MEDIA_STATUS_BY_TASK_STATUS[o.status] ?? o.status,
  progressPercent: o.progressPercent,
  eta: o.eta,
  polls: pollsBefore + o.polls,
  taskPolls: o.polls,
  observedAt: isoTime(o.observedAt),
  nextPollAt: isoTime(o.nextPollAt),
});

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
    const submitting = () =>
      progress.update({
        status: generation > 1 ? 'REGENERATING' : 'SUBMITTING',
        generation,
        submissions: submissions.length,
        taskId: undefined,
      });
    submitting();
    const sent = await submitGeneration(input, generation, submissions, submitting, deadlineAt);
    const { taskId, firstLook, uncountedPolls = 0, callback } = sent;
    // Every task-result request counts: the submit's look is this task's first poll.
    const pollsBefore = polls + uncountedPolls;
    // With the submit's first look, the task id and the status it shows go in one upsert. Without one
    // (a callback is expected, or the look failed or saw the task ended), two upserts.
    const taskIdAttribute = { key: SearchAttributes.taskId, value: taskId };
    if (firstLook) {
      progress.update({ taskId, submissions: submissions.length, ...observed(firstLook, pollsBefore) }, [
        taskIdAttribute,
      ]);
    } else {
      upsertSearchAttributes([taskIdAttribute]);
      progress.update({
        taskId,
        submissions: submissions.length,
        status: 'SUBMITTED',
        progressPercent: undefined,
        eta: undefined,
      });
    }

    // 2. Wait for the end, polling by the platform's eta and progress, from the submit's first look;
    // with a callback URL on the submit, for the callback, polling only as a safety net.
    const end = await waitForTaskEnd(
      taskId,
      input.polling,
      deadlineAt,
      (o) => progress.update(observed(o, pollsBefore)),
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
        const why = final ? ' (not worth generating again)' : ` (after ${generation} generations)`;
        throw generationFailed(progress, `Task ${taskId} failed: ${reason}${why}`, {
          reason,
          taskId,
          generations,
          submissions,
        });
      }
      continue;
    }

    // 4. Keep the outputs before their URLs expire.
    return {
      operation: input.operation,
      model: modelFacts(input, end.outputs),
      ...(await kept(input, taskId, end, progress, { submittedAt: isoTime(sent.submittedAt) })),
      polls,
      generations,
      submissions,
      possibleDuplicates: submissions.filter((s) => s.outcome === 'accepted' && s.possibleDuplicate).length,
    };
  }
}

/**
 * The attach form: a task submitted elsewhere (by another system, or by hand), followed with the same
 * wait as a submitted task and its outputs kept. Nothing paid is sent: it was paid where it was submitted.
 */
async function followAttachedTask(
  input: ParsedMediaAttachInput,
  progress: MediaProgressTracker,
  deadlineAt: number,
): Promise<MediaGenerationResult> {
  const { taskId } = input.attach;
  const attachedAt = Date.now();
  let end: TaskCheckpoint;
  try {
    // No first look to start from: the first poll is made at once, and a wrong id fails there.
    end = await waitForTaskEnd(taskId, input.polling, deadlineAt, (o) => progress.update(observed(o, 0)));
  } catch (err) {
    const missing = attachedNotFound(err, 'task', taskId);
    if (missing) progress.update({ status: 'FAILED' });
    throw missing ?? err;
  }
  const done = end.observation;
  const generations = [{ generation: 1, taskId, status: done.status, reason: done.reason, polls: done.polls }];
  if (done.status !== 'TASK_STATUS_SUCCEED') {
    const reason = done.reason ?? 'no reason given';
    // Its request is not known here, so it cannot be generated again.
    const message = `Attached task ${taskId} failed: ${reason} (an attached task is not generated again)`;
    throw generationFailed(progress, message, { reason, taskId, generations });
  }
  return {
    attached: true,
    ...(await kept(input, taskId, end, progress, { attachedAt: isoTime(attachedAt) })),
    polls: done.polls,
    generations,
    submissions: [],
    possibleDuplicates: 0,
  };
}

function generationFailed(progress: MediaProgressTracker, message: string, details: object): ApplicationFailure {
  progress.update({ status: 'FAILED' });
  return ApplicationFailure.create({
    type: FailureType.GenerationFailed,
    nonRetryable: true,
    message,
    details: [details],
  });
}

/** Keeping outputs: retried until they are kept or their URLs expire (OutputExpired ends it). */
const keeper = () =>
  proxyActivities<Activities>(
    untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, { attemptMs: 10 * 60_000, heartbeatMs: 60_000 }),
  );

/**
 * A finished task's outputs kept before their URLs expire (or only reported, keepOutputs false), its
 * times and its cost facts; then SUCCEEDED.
 */
async function kept(
  input: { keepOutputs: boolean },
  taskId: string,
  end: TaskCheckpoint,
  progress: MediaProgressTracker,
  startedAt: { submittedAt?: string; attachedAt?: string },
): Promise<Pick<MediaGenerationResult, 'taskId' | 'outputs' | 'outputUrls' | 'timings' | 'cost'>> {
  let outputs: MediaGenerationResult['outputs'] = [];
  if (input.keepOutputs && end.outputs.length > 0) {
    progress.update({ status: 'KEEPING_OUTPUTS' });
    outputs = await summarized(
      keeper().keepTaskOutputs,
      `keep ${end.outputs.length} outputs of task ${taskId}`,
    )({
      workflowId: workflowInfo().workflowId,
      taskId,
      outputs: end.outputs,
      seenDoneAt: end.observation.observedAt,
    });
    progress.update({ outputs: outputs.map((o) => ({ kind: o.kind, uri: o.kept.uri })) });
  }
  progress.update({ status: 'SUCCEEDED' });
  const done = end.observation;
  return {
    taskId,
    outputs,
    outputUrls: input.keepOutputs
      ? []
      : end.outputs.map((o) => ({ kind: o.kind, url: o.url, ttlSeconds: o.ttlSeconds })),
    timings: { ...startedAt, firstProcessingAt: isoTime(done.firstProcessingAt), doneAt: isoTime(done.observedAt) },
    cost: costFacts(end.outputs, end.nsfwDetection),
  };
}

/** The cost facts the spec gives. The video price itself is not published; the bill list has the charge. */
function costFacts(outputs: TaskOutputRef[], nsfwDetection: boolean): MediaGenerationResult['cost'] {
  const images = outputs.filter((o) => o.kind === 'image').length;
  const nsfwSurcharge = nsfwDetection ? images * NSFW_DETECTION_COST_PER_IMAGE : 0;
  return {
    nsfwDetection,
    images,
    nsfwSurcharge,
    nsfwSurchargeUsd: usdText(nsfwSurcharge),
    note:
      'NSFW detection adds 0.0015 USD per generated image when enabled. The generation price is not published ' +
      'in the spec: see the bill list for what was charged.',
  };
}

/** The result's `model` facts: the path submitted to and the output kinds expected but not produced. */
function modelFacts(
  input: ParsedMediaGenerationRequestInput,
  outputs: readonly Pick<TaskOutputRef, 'kind'>[],
): MediaGenerationResult['model'] {
  if (input.operation !== 'async') return undefined;
  const m = resolvedModel(input);
  const produced = new Set(outputs.map((o) => o.kind));
  // Pass-through models may produce any kind: only a registered model's list is an expectation.
  const expected = m.passThrough ? [] : m.outputs;
  return {
    name: m.model,
    path: m.path,
    passThrough: m.passThrough,
    expectedOutputs: expected,
    missingOutputs: expected.filter((k) => !produced.has(k)),
  };
}

/**
 * Polls per task on the worker's Prometheus endpoint, recorded here, the one place that knows both the
 * polls and whether the end came by callback. Metrics are no commands (replay drops them): no patch.
 */
function recordTaskPolls(polls: number, tags: { operation: string; webhook: boolean; endedBy: 'callback' | 'poll' }) {
  metricMeter
    .createHistogram('platform_task_polls', 'int', 'polls', 'Task-result reads per task, by how its end was learnt')
    .record(polls, { operation: tags.operation, webhook: tags.webhook ? 'on' : 'off', ended_by: tags.endedBy });
}
