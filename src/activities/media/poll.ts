// Waiting for a task to end by retry-as-poll (../poll-again.ts): each attempt of pollTaskResult makes
// one task-result request. Still running: the attempt fails as StillRunning with the delay the
// platform's eta and progress suggest, and the server runs the next attempt then. A status change, a
// progress step or the end: the attempt returns a checkpoint to the workflow, so its mediaProgress
// query stays fresh for a few history events per task, however many polls are made.
//
// Why not one long heartbeating activity: it would hold an activity slot and heartbeat every few
// seconds, so the server's work would grow with the time spent waiting (about 3,300 requests/s for
// 10,000 waits). Here a waiting task costs nothing until its next poll, and a poll costs two requests
// (the failed attempt and the next dispatch). A worker lost mid-attempt is noticed by the attempt's
// start-to-close timeout (short, because an attempt is one bounded HTTP call), not by a heartbeat.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import type { ParsedPollingOptions, TaskObservation, TaskOutputRef } from '../../workflows/media/contract';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { isTerminalTaskStatus } from '../../platform/schemas/media';
import { toApplicationFailure } from '../failures';
import { awaitPollTurn, errorBackoffMs, POLL_TIMEOUT_MS, pollAgainIn, retryDelayFor } from '../poll-again';
import { nextPollDelayMs, type PollSample } from './poll-schedule';
import { outputsOf } from './task-outputs';

export interface PollTaskInput {
  taskId: string;
  polling: ParsedPollingOptions;
  /** Real epoch ms after which the wait fails as DeadlineExceeded. */
  deadlineAt: number;
  /** The last checkpoint: its poll count, when the next poll is due, and the sample progress is measured from. */
  since?: TaskObservation;
  /** Report back each time progress_percent crosses a multiple of this (0: status changes only). */
  progressStep: number;
  /** A callback is expected (the submit carried its URL): polls are a sparse safety net. */
  fallback?: CallbackFallback;
}

/**
 * Polling while a callback is expected: a lost callback delays the result, never loses it. The first
 * poll at `firstPollAt` (the submit answers no eta, and reading one would cost the call a callback
 * saves), then no two polls closer than `pollIntervalMs`.
 */
export interface CallbackFallback {
  firstPollAt: number;
  pollIntervalMs: number;
}

export interface TaskCheckpoint {
  observation: TaskObservation;
  terminal: boolean;
  /** On TASK_STATUS_SUCCEED: the outputs, with their TTLs. */
  outputs: TaskOutputRef[];
  nsfwDetection: boolean;
}

const step = (progress: number | undefined, size: number) =>
  size > 0 && progress !== undefined ? Math.floor(progress / size) : 0;

const sampleOf = (o: TaskObservation): PollSample => ({
  at: o.observedAt,
  status: o.status,
  eta: o.eta,
  progressPercent: o.progressPercent,
});

export function createMediaPollActivities(platform: PlatformClient) {
  return {
    async pollTaskResult(input: PollTaskInput): Promise<TaskCheckpoint> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const { since, deadlineAt, polling, taskId } = input;
      const planned = since ?? (input.fallback && { nextPollAt: input.fallback.firstPollAt });
      const polls = (since?.polls ?? 0) + (await awaitPollTurn(ctx, taskId, planned, deadlineAt));
      const now = Date.now();
      if (now >= deadlineAt) throw taskDeadlineExceeded(input, since);
      const untilDeadline = (ms: number) => Math.max(1, Math.min(ms, deadlineAt - now));

      let result;
      try {
        result = await platform.getTaskResult(taskId, {
          signal: ctx.cancellationSignal,
          timeoutMs: Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs),
        });
      } catch (err) {
        // Polls are reads: a transient failure is retried until the deadline, however long the outage.
        if (err instanceof PlatformError && err.retryable) {
          const delay = untilDeadline(errorBackoffMs(err, attempt, polling.minIntervalMs));
          throw toApplicationFailure(err, { nextRetryDelayMs: retryDelayFor(delay) });
        }
        throw err;
      }

      const observedAt = Date.now();
      const task = result.task;
      const observation: TaskObservation = {
        taskId,
        status: task.status,
        reason: task.reason || undefined,
        eta: task.eta ?? undefined,
        progressPercent: task.progress_percent ?? undefined,
        polls,
        observedAt,
        firstProcessingAt:
          since?.firstProcessingAt ?? (task.status === 'TASK_STATUS_PROCESSING' ? observedAt : undefined),
      };
      if (isTerminalTaskStatus(task.status)) {
        return {
          observation,
          terminal: true,
          outputs: task.status === 'TASK_STATUS_SUCCEED' ? outputsOf(result) : [],
          nsfwDetection: result.extra?.enable_nsfw_detection === true,
        };
      }

      const sample = sampleOf(observation);
      const hinted = (sample.eta !== undefined && sample.eta > 0) || sample.progressPercent !== undefined;
      // The checkpoint is the earlier sample of this phase: the progress rate is measured from it.
      const hintedDelay = nextPollDelayMs(polling, sample, since && sampleOf(since), hinted ? 0 : attempt);
      const delay = untilDeadline(Math.max(hintedDelay, input.fallback?.pollIntervalMs ?? 0));
      const next: TaskObservation = { ...observation, nextPollAt: observedAt + delay };
      const movedOn =
        task.status !== since?.status ||
        step(observation.progressPercent, input.progressStep) > step(since?.progressPercent, input.progressStep);
      if (movedOn) return { observation: next, terminal: false, outputs: [], nsfwDetection: false };
      throw pollAgainIn(
        delay,
        `${taskId} is ${task.status} at ${observation.progressPercent ?? '?'}%, eta ${observation.eta ?? '?'} s: ` +
          `next poll in ${delay} ms`,
        next,
      );
    },
  };
}

export function taskDeadlineExceeded(
  input: { taskId: string; deadlineAt: number },
  last: TaskObservation | undefined,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.DeadlineExceeded,
    nonRetryable: true,
    message:
      `Task ${input.taskId} did not end before the deadline ${new Date(input.deadlineAt).toISOString()}` +
      (last ? `; last seen ${last.status} at ${last.progressPercent ?? '?'}% after ${last.polls} polls` : '') +
      '. The task may still finish (and be charged) on the platform.',
    details: [{ taskId: input.taskId, last }],
  });
}
