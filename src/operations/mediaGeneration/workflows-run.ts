// mediaGeneration's run: its progress, its submits and generations, and each step's details.
import {
  ApplicationFailure,
  metricMeter,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  FailureType,
  isAttach,
  isTerminalTaskStatus,
  MEDIA_STATUS_BY_TASK_STATUS,
  type MediaGenerationResult,
  type MediaGenerationStatus,
  type MediaProgress,
  mediaStartStatus,
  NSFW_DETECTION_COST_PER_IMAGE,
  type ParsedMediaGenerationInput,
  type ParsedMediaGenerationRequestInput,
  SearchAttributes,
  type SubmissionAttempt,
  type TaskObservation,
  type TaskOutputRef,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, SubmitMediaTaskResult, TaskCheckpoint } from './activities';
import { usdText } from '../../platform/money';
import { isoTime } from '../../shared/time';
import { summarized } from '../../workflows/activity-summary';
import { attachedNotFound } from '../../workflows/attach';
import { DEFAULT_DEADLINE_MS, untilDeadline } from '../../workflows/retry-policies';
import { trackProgress } from '../../workflows/status';
import { resolvedModel, submitGeneration } from './workflows-submit';
import { TaskCallbackInbox, waitForTaskEnd } from './workflows-wait';

type MediaProgressTracker = ReturnType<typeof trackProgress<MediaGenerationStatus, MediaProgress>>;
export type Sent = Pick<SubmitMediaTaskResult, 'taskId'> & Partial<SubmitMediaTaskResult>;

export class MediaRun {
  readonly progress: MediaProgressTracker;
  readonly callbacks = new TaskCallbackInbox();
  readonly deadlineAt: number;
  readonly attachedAt: number;
  readonly submissions: SubmissionAttempt[] = [];
  readonly generations: MediaGenerationResult['generations'] = [];
  polls = 0;

  constructor(readonly input: ParsedMediaGenerationInput) {
    // An attached task is known from the start: its id is among the first attributes, with ATTACHING.
    const attachedId = isAttach(input) ? input.attach.taskId : undefined;
    this.progress = trackProgress<MediaGenerationStatus, MediaProgress>(
      WorkflowType.mediaGeneration,
      {
        generation: 1,
        polls: 0,
        submissions: 0,
        status: mediaStartStatus(input),
        ...(attachedId === undefined ? {} : { taskId: attachedId }),
      },
      { memberId: input.memberId, taskId: attachedId, costEstimate: input.costEstimate, givenAtStart: true },
    );
    this.deadlineAt = workflowInfo().startTime.getTime() + input.deadlineSeconds * 1000;
    this.attachedAt = Date.now();
  }

  async submit(request: ParsedMediaGenerationRequestInput, generation: number): Promise<Sent> {
    const { progress, submissions } = this;
    const submitting = () =>
      progress.update({
        status: generation > 1 ? 'REGENERATING' : 'SUBMITTING',
        generation,
        submissions: submissions.length,
        taskId: undefined,
      });
    submitting();
    const sent = await submitGeneration(request, generation, submissions, submitting, this.deadlineAt);
    const { taskId, firstLook, uncountedPolls = 0 } = sent;
    const taskIdAttribute = { key: SearchAttributes.taskId, value: taskId };
    const update = { taskId, submissions: submissions.length, resumedFrom: sent.resumed?.runId };
    if (firstLook) {
      progress.update({ ...update, ...observed(firstLook, this.polls + uncountedPolls) }, [taskIdAttribute]);
    } else {
      upsertSearchAttributes([taskIdAttribute]);
      progress.update({ ...update, status: 'SUBMITTED', progressPercent: undefined, eta: undefined });
    }
    return sent;
  }

  async waitForEnd(sent: Sent, generation: number): Promise<TaskCheckpoint> {
    const { input, progress } = this;
    const { taskId, firstLook, uncountedPolls = 0, callback } = sent;
    const pollsBefore = this.polls + uncountedPolls;
    let end: TaskCheckpoint;
    try {
      end = await waitForTaskEnd(
        taskId,
        input.polling,
        this.deadlineAt,
        // A task's end is searchable with the step after it (regenerate, keep, succeed, fail), which this workflow
        // task sets: one upsert, not two.
        (o) => progress.update(observed(o, pollsBefore), undefined, !isTerminalTaskStatus(o.status)),
        firstLook,
        callback && { inbox: this.callbacks, fallback: callback },
      );
    } catch (err) {
      const missing = isAttach(input) ? attachedNotFound(err, 'task', taskId) : undefined;
      if (missing) progress.update({ status: 'FAILED' });
      throw missing ?? err;
    }
    const done = end.observation;
    this.polls = pollsBefore + done.polls;
    if (!isAttach(input)) {
      // Metrics are no commands (replay drops them): no patch.
      metricMeter
        .createHistogram('platform_task_polls', 'int', 'polls', 'Task-result reads per task, by how its end was learnt')
        .record(uncountedPolls + done.polls, {
          operation: input.operation,
          webhook: callback ? 'on' : 'off',
          ended_by: this.callbacks.endOf(taskId) ? 'callback' : 'poll',
        });
    }
    const { status } = done;
    this.generations.push({ generation, taskId, status, reason: done.reason, polls: uncountedPolls + done.polls });
    return end;
  }

  /** A failed task: returns when it is worth generating again, else fails the run. */
  failed(taskId: string, done: TaskObservation, generation: number): void {
    const { input, progress, generations, submissions } = this;
    const { reason = 'no reason given' } = done;
    if (!isAttach(input)) {
      const final = input.regeneration.nonRetryableReasons.includes(reason);
      if (!final && generation <= input.regeneration.maxRegenerations) return;
      const why = final ? ' (not worth generating again)' : ` (after ${generation} generations)`;
      const details = { reason, taskId, generations, submissions };
      throw generationFailed(progress, `Task ${taskId} failed: ${reason}${why}`, details);
    }
    const message = `Attached task ${taskId} failed: ${reason} (an attached task is not generated again)`;
    throw generationFailed(progress, message, { reason, taskId, generations });
  }

  keepsOutputs(end: TaskCheckpoint): boolean {
    return this.input.keepOutputs && end.outputs.length > 0;
  }

  async keepOutputs(taskId: string, end: TaskCheckpoint): Promise<MediaGenerationResult['outputs']> {
    this.progress.update({ status: 'KEEPING_OUTPUTS' });
    const { keepTaskOutputs } = proxyActivities<Activities>(
      untilDeadline(Date.now() + DEFAULT_DEADLINE_MS.keepOutputs, { attemptMs: 10 * 60_000, heartbeatMs: 60_000 }),
    );
    const outputs = await summarized(
      keepTaskOutputs,
      `keep ${end.outputs.length} outputs of task ${taskId}`,
    )({ workflowId: workflowInfo().workflowId, taskId, outputs: end.outputs, seenDoneAt: end.observation.observedAt });
    this.progress.update({ outputs: outputs.map((o) => ({ kind: o.kind, uri: o.kept.uri })) });
    return outputs;
  }

  succeeded(sent: Sent, end: TaskCheckpoint, outputs: MediaGenerationResult['outputs']): MediaGenerationResult {
    const { input, submissions } = this;
    const done = end.observation;
    const resumed = submissions.flatMap((s) => s.resumed ?? []);
    this.progress.update({ status: 'SUCCEEDED' });
    return {
      ...(isAttach(input)
        ? { attached: true as const }
        : { operation: input.operation, model: modelFacts(input, end.outputs) }),
      taskId: sent.taskId,
      outputs,
      outputUrls: input.keepOutputs
        ? []
        : end.outputs.map((o) => ({ kind: o.kind, url: o.url, ttlSeconds: o.ttlSeconds })),
      timings: {
        ...(sent.submittedAt === undefined
          ? { attachedAt: isoTime(this.attachedAt) }
          : { submittedAt: isoTime(sent.submittedAt) }),
        firstProcessingAt: isoTime(done.firstProcessingAt),
        doneAt: isoTime(done.observedAt),
      },
      polls: this.polls,
      generations: this.generations,
      submissions,
      possibleDuplicates: submissions.filter((s) => s.outcome === 'accepted' && s.possibleDuplicate).length,
      ...(resumed.length > 0 ? { resumed } : {}),
      cost: costFacts(end.outputs, end.nsfwDetection),
    };
  }
}

const observed = (o: TaskObservation, pollsBefore: number): Partial<MediaProgress> => ({
  status: MEDIA_STATUS_BY_TASK_STATUS[o.status] ?? o.status,
  progressPercent: o.progressPercent,
  eta: o.eta,
  polls: pollsBefore + o.polls,
  taskPolls: o.polls,
  observedAt: isoTime(o.observedAt),
  nextPollAt: isoTime(o.nextPollAt),
});

function generationFailed(progress: MediaProgressTracker, message: string, details: object): ApplicationFailure {
  progress.update({ status: 'FAILED' });
  return ApplicationFailure.nonRetryable(message, FailureType.GenerationFailed, details);
}

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
