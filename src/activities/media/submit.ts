// Submitting a generation: one attempt per activity execution. Temporal does not retry it on its
// own (maximumAttempts 1 in the workflow): only the workflow can tell a refused attempt, safe to
// resend, from one that may already have created a paid task (see classifySubmitFailure).
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import type { PollingOptions, TaskObservation } from '../../api/schemas/media';
import type { PlatformClient } from '../../client/client';
import { PlatformError } from '../../client/errors';
import type { ImageToVideoRequest, TextToVideoRequest } from '../../platform/schemas/media';
import { classifySubmitFailure } from '../../client/submission';
import { toApplicationFailure } from '../failures';
import { firstLook } from './first-look';

interface SubmitAttempt {
  generation: number;
  attempt: number;
  /** Given: an accepted task is read once at once (./first-look.ts), planned by these options. */
  polling?: PollingOptions;
}

export type SubmitMediaTaskInput =
  | ({ operation: 'image-to-video'; request: ImageToVideoRequest } & SubmitAttempt)
  | ({ operation: 'text-to-video'; request: TextToVideoRequest } & SubmitAttempt);

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
  at: number;
  retryAfterMs?: number;
  status?: number;
  reason?: string;
  traceId?: string;
}

export function createMediaSubmitActivities(platform: PlatformClient) {
  const submit = (input: SubmitMediaTaskInput, signal: AbortSignal) =>
    input.operation === 'image-to-video'
      ? platform.submitImageToVideo(input.request, { signal })
      : platform.submitTextToVideo(input.request, { signal });

  return {
    async submitMediaTask(input: SubmitMediaTaskInput): Promise<SubmitMediaTaskResult> {
      const { workflowExecution } = Context.current().info;
      const where = { workflowId: workflowExecution?.workflowId, generation: input.generation, attempt: input.attempt };
      const signal = Context.current().cancellationSignal;
      let taskId: string;
      try {
        ({ task_id: taskId } = await submit(input, signal));
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        const cls = classifySubmitFailure(err);
        log.warn('Submit attempt failed', { ...where, class: cls, error: err.message });
        if (cls === 'rejected') throw toApplicationFailure(err);
        const details: SubmitFailureDetails = {
          at: Date.now(),
          retryAfterMs: err.retryAfterMs,
          status: err.status,
          reason: err.reason,
          traceId: err.traceId,
        };
        const type =
          cls === 'ambiguous'
            ? FailureType.AmbiguousSubmission
            : err.status === 429
              ? FailureType.RateLimited
              : FailureType.PlatformUnavailable;
        throw ApplicationFailure.create({ type, message: err.message, nonRetryable: false, details: [details] });
      }
      const submittedAt = Date.now();
      log.info('Submitted generation', { ...where, operation: input.operation, taskId });
      if (!input.polling) return { taskId, submittedAt };
      const { observation, reads } = await firstLook(platform, taskId, input.polling, signal);
      if (observation) return { taskId, submittedAt, firstLook: observation };
      return reads > 0 ? { taskId, submittedAt, uncountedPolls: reads } : { taskId, submittedAt };
    },
  };
}
