// The media generation activities: submit (here), wait for the end (./activities-poll.ts), keep the outputs
// (./activities-outputs.ts). A failed submit attempt's outcome is decided here (refused: safe to resend;
// ambiguous: it may have created a paid task; rejected: never) and handed to the workflow in its details.
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

export type { CallbackFallback, TaskCheckpoint } from './activities-poll';

type SubmitAttempt = { generation: number; attempt: number; polling: ParsedPollingOptions };

export type SubmitMediaTaskInput =
  | ({ operation: 'image-to-video'; request: ImageToVideoRequest } & SubmitAttempt)
  | ({ operation: 'text-to-video'; request: TextToVideoRequest } & SubmitAttempt)
  | ({ operation: 'async'; model: string; path: string; request: AsyncBody } & SubmitAttempt);

export interface SubmitMediaTaskResult {
  taskId: string;
  resumed?: Resumed;
  submittedAt: number;
  firstLook?: TaskObservation;
  /** A first-look read that firstLook does not carry (it failed, or saw the task ended). */
  uncountedPolls?: number;
  callback?: CallbackFallback;
}

export interface SubmitFailureDetails {
  /** Absent only from an error this activity did not expect. */
  outcome?: SubmitFailureClass;
  at?: number;
  retryAfterMs?: number;
  status?: number;
  reason?: string;
  traceId?: string;
}

/** A retryable attempt's failure, its outcome decided. */
function attemptFailed(
  message: string,
  type: string,
  outcome: SubmitFailureClass,
  more?: Omit<SubmitFailureDetails, 'outcome' | 'at'>,
): ApplicationFailure {
  const details: SubmitFailureDetails = { outcome, at: Date.now(), ...more };
  return ApplicationFailure.retryable(message, type, details);
}

/** A rejected attempt fails as any activity does for that error; the others are typed by what the caller may do. */
function submitFailure(err: PlatformError, outcome: SubmitFailureClass): ApplicationFailure {
  if (outcome === 'rejected') return toApplicationFailure(err, { detail: { outcome } });
  const { retryAfterMs, status, reason, traceId } = err;
  const type =
    outcome === 'ambiguous'
      ? FailureType.AmbiguousSubmission
      : status === 429
        ? FailureType.RateLimited
        : FailureType.PlatformUnavailable;
  return attemptFailed(err.message, type, outcome, { retryAfterMs, status, reason, traceId });
}

/** The request with our callback URL in `extra.webhook`, unless the caller set one or `extra` is no object. */
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

/** The callback URL (its token) cut out: the error reaches logs and the history. */
function withoutUrl(err: PlatformError, url: string | undefined): PlatformError {
  if (!url || !(err.message.includes(url) || err.platformMessage?.includes(url))) return err;
  return new PlatformError({
    ...err,
    message: redact(err.message, [url]),
    platformMessage: err.platformMessage && redact(err.platformMessage, [url]),
  });
}

const MARKS_SENDING = { marksSending: true };

function taskOf(ctx: Context, earlier: EarlierPaidCall<SubmitMediaTaskInput, SubmitMediaTaskResult>) {
  const { resumed: _, ...result } = earlier.result!;
  return { ...result, resumed: resumedFrom(ctx, earlier, `task ${result.taskId}`) };
}

/**
 * After a reset, the task an earlier run's same submit created. One whose answer never came is ambiguous; one
 * that failed is answered alike when that run submitted again after it, so this run's next submit meets that
 * run's next one; with none after it, this run sends it again.
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
  const lost = `${where} may have created a task: its answer was lost`;
  if (ambiguous) throw attemptFailed(lost, FailureType.AmbiguousSubmission, 'ambiguous');
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
  throw attemptFailed(`${where} was not sent`, FailureType.PlatformUnavailable, 'refused');
}

/** A reset run's submit before its turn on the quota: the earlier run's answered task, or NothingEarlier. */
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
    async submitMediaTask(
      input: SubmitMediaTaskInput & AfterReset & { lookUpOnly?: boolean },
    ): Promise<SubmitMediaTaskResult> {
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
        const message = `${input.operation} not sent: the shared rate limit holds every submit for ${Math.ceil(holdMs / 1000)} s more`;
        throw attemptFailed(message, FailureType.RateLimited, 'refused', { retryAfterMs: holdMs, status: 429 });
      }
      const { request, url } = withCallback(input, callbacks, workflowId);
      try {
        await markSending(temporal, ctx);
      } catch (err) {
        const message = `${input.operation} not sent: the server did not record that the attempt was sending (${String(err)})`;
        throw attemptFailed(message, FailureType.TemporalUnavailable, 'refused');
      }
      let taskId: string;
      try {
        ({ task_id: taskId } = await submit(input, request, signal));
      } catch (caught) {
        if (!(caught instanceof PlatformError)) throw caught;
        const err = withoutUrl(caught, url);
        // Everyone slows down, not only this attempt.
        if (err.status === 429 && pacing) {
          await pacing.rateLimited(input.operation, err.retryAfterMs).catch((e: unknown) => {
            log.warn('Could not slow the shared rate limit', { ...where, error: String(e) });
          });
        }
        const outcome = classifySubmitFailure(err);
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
        // No first look: the callback makes its read unnecessary.
        const { firstPollAfterMs, pollIntervalMs } = callbacks;
        const callback = { firstPollAt: submittedAt + firstPollAfterMs, pollIntervalMs };
        return answerPaidCall(temporal, ctx, { taskId, submittedAt, callback });
      }
      const { observation, reads } = await firstLook(platform, taskId, input.polling, signal);
      const look = observation ? { firstLook: observation } : { uncountedPolls: reads };
      return answerPaidCall(temporal, ctx, { taskId, submittedAt, ...look });
    },
    ...createMediaPollActivities(platform, temporal),
    ...createOutputActivities(artifacts, fetchPolicy),
  };
}
export type Activities = ReturnType<typeof createMediaActivities>;
