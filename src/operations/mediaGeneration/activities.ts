// The media generation activities: submit (here), wait for the end (./poll.ts), keep the outputs
// (../outputs.ts). A submit is one attempt per activity execution (maximumAttempts 1 in the workflow):
// a failed attempt's outcome is decided here, once (refused: safe to resend; ambiguous: it may
// already have created a paid task; rejected: never; see classifySubmitFailure), and handed to the
// workflow in the failure's details, which acts on it.
import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityDeps } from '../activities-deps';
import {
  type AsyncBody,
  FailureType,
  type ImageToVideoRequest,
  markedSending,
  type ParsedPollingOptions,
  priorityClassOf,
  type Resumed,
  type TaskObservation,
  type TextToVideoRequest,
} from '@platform-ops/client';
import { classifySubmitFailure, PlatformError, redact, type SubmitFailureClass } from '../../platform-client/errors';
import type { CallbackUrls } from '../../webhooks/token';
import { recordSubmitWait } from '../../metrics';
import {
  answerPaidCall,
  decodePayloads,
  earlierPaidCall,
  markSending,
  resumedFrom,
  type AfterReset,
  type EarlierPaidCall,
} from '../../activities/earlier-runs';
import { toApplicationFailure } from '../../activities/retries';
import { createOutputActivities } from './activities-outputs';
import { createMediaPollActivities, firstLook, type CallbackFallback } from './activities-poll';

export type { CallbackFallback, PollTaskInput, TaskCheckpoint } from './activities-poll';

interface SubmitAttempt {
  generation: number;
  attempt: number;
  /** An accepted task is read once at once (firstLook), planned by these options. */
  polling: ParsedPollingOptions;
}

export type SubmitMediaTaskInput =
  | ({ operation: 'image-to-video'; request: ImageToVideoRequest } & SubmitAttempt)
  | ({ operation: 'text-to-video'; request: TextToVideoRequest } & SubmitAttempt)
  /** Any model: `path` is the segment the workflow resolved from the registry (for logs: `model`). */
  | ({ operation: 'async'; model: string; path: string; request: AsyncBody } & SubmitAttempt);

export interface SubmitMediaTaskResult {
  taskId: string;
  /** After a reset: the task an earlier run's same submit created, taken instead of a new one. */
  resumed?: Resumed;
  /** Real epoch ms when the platform answered. */
  submittedAt: number;
  /** The task's status and eta read right after the submit, when it had not ended (firstLook). */
  firstLook?: TaskObservation;
  /** A first-look read that firstLook does not carry (it failed, or saw the task ended): one more poll. */
  uncountedPolls?: number;
  /** The submit carried our callback URL: the end is expected by callback, polls are a safety net. */
  callback?: CallbackFallback;
}

/** What the workflow reads from a failed attempt's details. */
export interface SubmitFailureDetails {
  /** Decided by this activity; absent only from an error it did not expect (see the workflow). */
  outcome?: SubmitFailureClass;
  /** When a refused or ambiguous attempt failed (real epoch ms). */
  at?: number;
  retryAfterMs?: number;
  status?: number;
  reason?: string;
  traceId?: string;
}

/**
 * The failure of an attempt, its outcome decided. A rejected one is the final failure any activity
 * raises for that error (its type says why: InvalidInput, BudgetExceeded …); the others are typed by
 * what the caller may do: AmbiguousSubmission, or RateLimited / PlatformUnavailable (refused).
 */
function submitFailure(err: PlatformError, outcome: SubmitFailureClass): ApplicationFailure {
  if (outcome === 'rejected') return toApplicationFailure(err, { detail: { outcome } });
  const { retryAfterMs, status, reason, traceId } = err;
  const details: SubmitFailureDetails = { outcome, at: Date.now(), retryAfterMs, status, reason, traceId };
  const type =
    outcome === 'ambiguous'
      ? FailureType.AmbiguousSubmission
      : status === 429
        ? FailureType.RateLimited
        : FailureType.PlatformUnavailable;
  return ApplicationFailure.retryable(err.message, type, details);
}

/**
 * The request with our callback URL in `extra.webhook`, unless the caller set a webhook of their own
 * (theirs is kept, and the task is polled as without callbacks). A generic model's body is the
 * model's own: it gets the same `extra.webhook` (the platform's async API takes it on every model),
 * unless its `extra` is not an object we could add to.
 */
function withCallback(
  input: SubmitMediaTaskInput,
  callbacks: CallbackUrls | undefined,
  workflowId: string | undefined,
): { request: SubmitMediaTaskInput['request']; url?: string } {
  const extra = input.request.extra as Record<string, unknown> | undefined;
  const extraIsObject = extra === undefined || (typeof extra === 'object' && extra !== null && !Array.isArray(extra));
  if (!callbacks || !workflowId || !extraIsObject || extra?.webhook !== undefined) return { request: input.request };
  const url = callbacks.urlFor({ workflowId, generation: input.generation });
  return { request: { ...input.request, extra: { ...extra, webhook: { url } } }, url };
}

/** A platform error with the callback URL (its token) cut out: the error reaches logs and the history. */
function withoutUrl(err: PlatformError, url: string | undefined): PlatformError {
  if (!url || !(err.message.includes(url) || err.platformMessage?.includes(url))) return err;
  return new PlatformError({
    ...err,
    message: redact(err.message, [url]),
    platformMessage: err.platformMessage && redact(err.platformMessage, [url]),
  });
}

/** A submit marks its sending (markSending): an earlier run's attempt without the mark sent nothing. */
const MARKS_SENDING = { marksSending: true };

/** The task an earlier run's answered submit created, as this submit's answer. */
function taskOf(ctx: Context, earlier: EarlierPaidCall<SubmitMediaTaskInput, SubmitMediaTaskResult>) {
  const { resumed: _, ...result } = earlier.result!;
  return { ...result, resumed: resumedFrom(ctx, earlier, `task ${result.taskId}`) };
}

/**
 * After a reset, the task an earlier run's same submit created (src/activities/earlier-runs.ts). A submit
 * whose answer never came is ambiguous, as after a lost worker (the workflow's policy decides). One that
 * failed is answered alike when that run submitted again after it, so that this run's next submit meets
 * that run's next one; with none after it, this run sends it again (a failed submit created nothing).
 */
async function earlierSubmit(temporal: Client, ctx: Context): Promise<SubmitMediaTaskResult | undefined> {
  const earlier = await earlierPaidCall<SubmitMediaTaskInput, SubmitMediaTaskResult>(temporal, ctx, MARKS_SENDING);
  if (!earlier) return undefined;
  if (earlier.outcome === 'answered') return taskOf(ctx, earlier);
  const where = `the same submit in run ${earlier.runId}, which a reset replaced,`;
  const failed = earlier.failure?.applicationFailureInfo;
  const timedOut = earlier.failure?.timeoutFailureInfo;
  const ambiguous =
    earlier.outcome === 'unanswered' ||
    failed?.type === FailureType.AmbiguousSubmission ||
    (!!timedOut && markedSending((await decodePayloads(temporal, timedOut.lastHeartbeatDetails))[0]));
  if (ambiguous) {
    const details: SubmitFailureDetails = { outcome: 'ambiguous', at: Date.now() };
    throw ApplicationFailure.retryable(
      `${where} may have created a task: its answer was lost`,
      FailureType.AmbiguousSubmission,
      details,
    );
  }
  if (earlier.laterCalls === 0) return undefined;
  if (failed) {
    const [details] = (await decodePayloads(temporal, failed.details)) as [SubmitFailureDetails?];
    const type = failed.type ?? FailureType.PlatformUnavailable;
    const message = `${where} failed: ${earlier.failure?.message ?? type}`;
    throw failed.nonRetryable
      ? ApplicationFailure.nonRetryable(message, type, details)
      : ApplicationFailure.retryable(message, type, details);
  }
  // Timed out before it was sent, or failed in a way that names no outcome: refused, as it was then.
  const details: SubmitFailureDetails = { outcome: 'refused', at: Date.now() };
  throw ApplicationFailure.retryable(`${where} was not sent`, FailureType.PlatformUnavailable, details);
}

/** Set by a reset run's first submit of a generation, sent on the workflow's own queue, unpaced. */
export interface LookUpOnly {
  lookUpOnly?: boolean;
}

/**
 * A reset run's submit, before it takes a turn on its quota: the task the earlier run's same submit was
 * answered with, or NothingEarlier, having sent nothing. A bulk reset of generations that all submitted
 * then resumes them at once, instead of each waiting for a paid turn it does not use; anything else (a
 * submit in flight that never answered, one that failed) is left to the submit on the quota, which
 * decides it as any reset run's submit does.
 */
async function lookUpEarlierSubmit(temporal: Client, ctx: Context): Promise<SubmitMediaTaskResult> {
  const earlier = await earlierPaidCall<SubmitMediaTaskInput, SubmitMediaTaskResult>(temporal, ctx, MARKS_SENDING);
  if (earlier?.outcome === 'answered') return answerPaidCall(temporal, ctx, taskOf(ctx, earlier));
  throw ApplicationFailure.create({
    type: FailureType.NothingEarlier,
    message: 'no answered submit of an earlier run to take: nothing was sent, the submit takes its turn on its quota',
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
  });
}

export function createMediaActivities({ platform, pacing, callbacks, artifacts, fetchPolicy, temporal }: ActivityDeps) {
  const submit = (input: SubmitMediaTaskInput, request: SubmitMediaTaskInput['request'], signal: AbortSignal) => {
    switch (input.operation) {
      case 'image-to-video':
        return platform.submitImageToVideo(request as ImageToVideoRequest, { signal });
      case 'text-to-video':
        return platform.submitTextToVideo(request, { signal });
      case 'async':
        return platform.submitAsyncTask({ path: input.path, body: request }, { signal });
    }
  };

  return {
    async submitMediaTask(input: SubmitMediaTaskInput & AfterReset & LookUpOnly): Promise<SubmitMediaTaskResult> {
      const ctx = Context.current();
      const { info, cancellationSignal: signal } = ctx;
      if (input.lookUpOnly) return lookUpEarlierSubmit(temporal, ctx);
      const earlier = input.afterReset ? await earlierSubmit(temporal, ctx) : undefined;
      if (earlier) return answerPaidCall(temporal, ctx, earlier);
      const workflowId = info.workflowExecution?.workflowId;
      const where = { workflowId, generation: input.generation, attempt: input.attempt };
      recordSubmitWait(
        info.priority?.fairnessKey,
        priorityClassOf(info.priority?.priorityKey),
        Date.now() - info.currentAttemptScheduledTimestampMs,
      );
      // Another worker met the quota's 429 and its Retry-After is not over: a refusal of our own, nothing sent.
      const holdMs = pacing?.holdRemainingMs(input.operation) ?? 0;
      if (holdMs > 0) {
        const details: SubmitFailureDetails = { outcome: 'refused', at: Date.now(), retryAfterMs: holdMs, status: 429 };
        throw ApplicationFailure.retryable(
          `${input.operation} not sent: the shared rate limit holds every submit for ${Math.ceil(holdMs / 1000)} s more`,
          FailureType.RateLimited,
          details,
        );
      }
      const { request, url } = withCallback(input, callbacks, workflowId);
      try {
        await markSending(temporal, ctx);
      } catch (err) {
        // Nothing sent: the workflow sends again after its backoff (or this attempt is no longer wanted).
        const details: SubmitFailureDetails = { outcome: 'refused', at: Date.now() };
        throw ApplicationFailure.retryable(
          `${input.operation} not sent: the server did not record that the attempt was sending (${String(err)})`,
          FailureType.TemporalUnavailable,
          details,
        );
      }
      let taskId: string;
      try {
        ({ task_id: taskId } = await submit(input, request, signal));
      } catch (caught) {
        if (!(caught instanceof PlatformError)) throw caught;
        const err = withoutUrl(caught, url);
        // Everyone slows down, not only this attempt (a failure to tell the server is only logged).
        if (err.status === 429 && pacing) {
          await pacing.rateLimited(input.operation, err.retryAfterMs).catch((e: unknown) => {
            log.warn('Could not slow the shared rate limit', { ...where, error: String(e) });
          });
        }
        const outcome = classifySubmitFailure(err);
        // Retried and ambiguous attempts are the failure model at work; a refusal ends the run, and its failure says why.
        const fields = { ...where, outcome, error: err.message };
        if (outcome === 'rejected') {
          log.warn(
            'The platform refused the submit: the run fails; its failure says why (input, balance or key)',
            fields,
          );
        } else log.info('Submit attempt failed; the workflow decides whether to send again', fields);
        throw submitFailure(err, outcome);
      }
      const submittedAt = Date.now();
      const model = input.operation === 'async' ? { model: input.model, path: input.path } : {};
      log.info('Submitted generation', { ...where, operation: input.operation, ...model, taskId, callback: !!url });
      if (url && callbacks) {
        // No first look: a callback makes the read it would cost unnecessary (calls per task ~1).
        const callback = {
          firstPollAt: submittedAt + callbacks.firstPollAfterMs,
          pollIntervalMs: callbacks.pollIntervalMs,
        };
        return answerPaidCall(temporal, ctx, { taskId, submittedAt, callback });
      }
      const { observation, reads } = await firstLook(platform, taskId, input.polling, signal);
      return answerPaidCall(
        temporal,
        ctx,
        observation ? { taskId, submittedAt, firstLook: observation } : { taskId, submittedAt, uncountedPolls: reads },
      );
    },
    ...createMediaPollActivities(platform, temporal),
    ...createOutputActivities(artifacts, fetchPolicy),
  };
}
export type Activities = ReturnType<typeof createMediaActivities>;
