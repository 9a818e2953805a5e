// Submitting a generation: one attempt per activity execution. Temporal does not retry it on its
// own (maximumAttempts 1 in the workflow). A failed attempt's outcome is decided here, once (refused:
// safe to resend; ambiguous: it may already have created a paid task; rejected: never; see
// classifySubmitFailure), and handed to the workflow in the failure's details, which acts on it.
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import type { ParsedPollingOptions, TaskObservation } from '../../api/schemas/media';
import type { PlatformClient } from '../../client/client';
import { PlatformError } from '../../client/errors';
import type { AsyncBody } from '../../platform/models';
import type { ImageToVideoRequest, TextToVideoRequest } from '../../platform/schemas/media';
import { classifySubmitFailure, type SubmitFailureClass } from '../../client/submission';
import type { SubmitPacing } from '../../ratelimit/shared-pacing';
import { toApplicationFailure } from '../failures';
import { firstLook } from './first-look';

interface SubmitAttempt {
  generation: number;
  attempt: number;
  /** Given: an accepted task is read once at once (./first-look.ts), planned by these options. */
  polling?: ParsedPollingOptions;
}

export type SubmitMediaTaskInput =
  | ({ operation: 'image-to-video'; request: ImageToVideoRequest } & SubmitAttempt)
  | ({ operation: 'text-to-video'; request: TextToVideoRequest } & SubmitAttempt)
  /** Any model: `path` is the segment the workflow resolved from the registry (for logs: `model`). */
  | ({ operation: 'async'; model: string; path: string; request: AsyncBody } & SubmitAttempt);

export interface SubmitMediaTaskResult {
  taskId: string;
  /** Real epoch ms when the platform answered. */
  submittedAt: number;
  /** The task's status and eta read right after the submit, when it had not ended (./first-look.ts). */
  firstLook?: TaskObservation;
  /** A first-look read that firstLook does not carry (it failed, or saw the task ended): one more poll. */
  uncountedPolls?: number;
}

/** What the workflow reads from a failed attempt's details. */
export interface SubmitFailureDetails {
  /** Decided by this activity. Absent from attempts recorded before it was (see the workflow). */
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
  const details: SubmitFailureDetails = {
    outcome,
    at: Date.now(),
    retryAfterMs: err.retryAfterMs,
    status: err.status,
    reason: err.reason,
    traceId: err.traceId,
  };
  const type =
    outcome === 'ambiguous'
      ? FailureType.AmbiguousSubmission
      : err.status === 429
        ? FailureType.RateLimited
        : FailureType.PlatformUnavailable;
  return ApplicationFailure.create({ type, message: err.message, nonRetryable: false, details: [details] });
}

/** A refusal of our own: another worker met the quota's 429 and its Retry-After is not over. Nothing is sent. */
function heldBack(operation: string, holdMs: number): ApplicationFailure {
  const details: SubmitFailureDetails = { outcome: 'refused', at: Date.now(), retryAfterMs: holdMs, status: 429 };
  return ApplicationFailure.create({
    type: FailureType.RateLimited,
    message: `${operation} not sent: the shared rate limit holds every submit for ${Math.ceil(holdMs / 1000)} s more`,
    nonRetryable: false,
    details: [details],
  });
}

export function createMediaSubmitActivities(platform: PlatformClient, pacing?: SubmitPacing) {
  const submit = (input: SubmitMediaTaskInput, signal: AbortSignal) => {
    switch (input.operation) {
      case 'image-to-video':
        return platform.submitImageToVideo(input.request, { signal });
      case 'text-to-video':
        return platform.submitTextToVideo(input.request, { signal });
      case 'async':
        return platform.submitAsyncTask({ path: input.path, body: input.request }, { signal });
    }
  };

  return {
    async submitMediaTask(input: SubmitMediaTaskInput): Promise<SubmitMediaTaskResult> {
      const { workflowExecution } = Context.current().info;
      const where = { workflowId: workflowExecution?.workflowId, generation: input.generation, attempt: input.attempt };
      const signal = Context.current().cancellationSignal;
      const holdMs = pacing?.holdRemainingMs(input.operation) ?? 0;
      if (holdMs > 0) throw heldBack(input.operation, holdMs);
      let taskId: string;
      try {
        ({ task_id: taskId } = await submit(input, signal));
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        // Everyone slows down, not only this attempt (a failure to tell the server is only logged).
        if (err.status === 429 && pacing) {
          await pacing.rateLimited(input.operation, err.retryAfterMs).catch((e: unknown) => {
            log.warn('Could not slow the shared rate limit', { ...where, error: String(e) });
          });
        }
        const outcome = classifySubmitFailure(err);
        log.warn('Submit attempt failed', { ...where, outcome, error: err.message });
        throw submitFailure(err, outcome);
      }
      const submittedAt = Date.now();
      const model = input.operation === 'async' ? { model: input.model, path: input.path } : {};
      log.info('Submitted generation', { ...where, operation: input.operation, ...model, taskId });
      if (!input.polling) return { taskId, submittedAt };
      const { observation, reads } = await firstLook(platform, taskId, input.polling, signal);
      if (observation) return { taskId, submittedAt, firstLook: observation };
      return reads > 0 ? { taskId, submittedAt, uncountedPolls: reads } : { taskId, submittedAt };
    },
  };
}
