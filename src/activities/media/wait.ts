// Waiting for a task to end, by polling task-result inside one long, heartbeating activity.
//
// Superseded by the retry-as-poll activity in ./poll.ts (patch "poll-as-retry"). Kept registered so
// generations that were waiting in this activity when the worker was upgraded still complete; remove
// it once no such run is open (docs/versioning.md).
//
// Why a heartbeating activity rather than one short poll per activity with an eta-driven
// nextRetryDelay: the wait sleeps exactly as long as the eta says, to the millisecond; transient
// poll errors (429, 5xx) are absorbed between polls instead of spending retry attempts; and every
// poll's facts travel in the heartbeat (visible live in the Web UI's pending activity) without adding
// history events. The activity returns to the workflow only at checkpoints - a status change, a
// progress step, the end - so the history does not grow with the number of polls. A lost worker is
// noticed by the heartbeat timeout, and the next attempt resumes from the last heartbeat.
import { Context } from '@temporalio/activity';
import type { ParsedPollingOptions, TaskObservation } from '../../workflows/media/contract';
import type { PlatformClient } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';
import { isTerminalTaskStatus, type TaskResult } from '../../platform/schemas/media';
import { toApplicationFailure } from '../failures';
import { nextPollDelayMs, type PollSample } from './poll-schedule';
import { outputsOf } from './task-outputs';
import { taskDeadlineExceeded, type TaskCheckpoint } from './poll';

export { outputsOf, type TaskCheckpoint };

export interface WaitForTaskInput {
  taskId: string;
  polling: ParsedPollingOptions;
  /** Real epoch ms after which the wait fails as DeadlineExceeded. */
  deadlineAt: number;
  /** The last checkpoint: where this wait takes over (poll count, planned next poll). */
  resume?: TaskObservation;
  /** Report back each time progress_percent crosses a multiple of this (0: status changes only). */
  progressStep: number;
}

const HEARTBEAT_EVERY_MS = 1_000;

const step = (progress: number | undefined, size: number) =>
  size > 0 && progress !== undefined ? Math.floor(progress / size) : 0;

export function createMediaWaitActivities(platform: PlatformClient) {
  return {
    async waitForTaskResult(input: WaitForTaskInput): Promise<TaskCheckpoint> {
      const ctx = Context.current();
      // A retried attempt (lost worker, crash) resumes from its last heartbeat, not from scratch.
      const resumed = (ctx.info.heartbeatDetails as TaskObservation | undefined) ?? input.resume;
      let current: TaskObservation | undefined = resumed;
      let polls = resumed?.polls ?? 0;
      // The last sample seeds the progress-rate estimate, so it survives a checkpoint.
      let previous: PollSample | undefined = resumed && {
        at: resumed.observedAt,
        status: resumed.status,
        eta: resumed.eta,
        progressPercent: resumed.progressPercent,
      };
      let hintless = 0;
      let errors = 0;
      const known = { status: input.resume?.status, step: step(input.resume?.progressPercent, input.progressStep) };

      const beat = () => ctx.heartbeat(current);
      const heartbeats = setInterval(beat, HEARTBEAT_EVERY_MS);
      try {
        beat();
        await waitUntil(ctx, resumed?.nextPollAt, input.deadlineAt);
        for (;;) {
          if (Date.now() >= input.deadlineAt) throw taskDeadlineExceeded(input, current);
          let result: TaskResult;
          try {
            result = await platform.getTaskResult(input.taskId, { signal: ctx.cancellationSignal });
            errors = 0;
          } catch (err) {
            if (!(err instanceof PlatformError)) throw err;
            if (!err.retryable || ++errors >= input.polling.maxConsecutiveErrors) throw toApplicationFailure(err);
            const backoff = Math.min(input.polling.maxIntervalMs, input.polling.minIntervalMs * 2 ** errors);
            await waitUntil(ctx, Date.now() + Math.max(err.retryAfterMs ?? 0, backoff), input.deadlineAt);
            continue;
          }

          const now = Date.now();
          const task = result.task;
          const sample: PollSample = {
            at: now,
            status: task.status,
            eta: task.eta ?? undefined,
            progressPercent: task.progress_percent ?? undefined,
          };
          polls++;
          current = {
            taskId: input.taskId,
            status: task.status,
            reason: task.reason || undefined,
            eta: sample.eta,
            progressPercent: sample.progressPercent,
            polls,
            observedAt: now,
            firstProcessingAt:
              current?.firstProcessingAt ?? (task.status === 'TASK_STATUS_PROCESSING' ? now : undefined),
          };

          if (isTerminalTaskStatus(task.status)) {
            current = { ...current, nextPollAt: undefined };
            beat();
            return {
              observation: current,
              terminal: true,
              outputs: task.status === 'TASK_STATUS_SUCCEED' ? outputsOf(result) : [],
              nsfwDetection: result.extra?.enable_nsfw_detection === true,
            };
          }

          const hinted = sample.eta !== undefined && sample.eta > 0;
          hintless = hinted || sample.progressPercent ? 0 : hintless + 1;
          const delay = nextPollDelayMs(input.polling, sample, previous, hintless);
          previous = sample;
          current = { ...current, nextPollAt: now + delay };
          beat();

          const newStep = step(sample.progressPercent, input.progressStep);
          if (task.status !== known.status || newStep > known.step) {
            return { observation: current, terminal: false, outputs: [], nsfwDetection: false };
          }
          await waitUntil(ctx, current.nextPollAt, input.deadlineAt);
        }
      } finally {
        clearInterval(heartbeats);
      }
    },
  };
}

/** Sleeps until `at` (never past the deadline); rejects at once when the activity is cancelled. */
async function waitUntil(ctx: Context, at: number | undefined, deadlineAt: number): Promise<void> {
  if (at === undefined) return;
  const ms = Math.min(at, deadlineAt) - Date.now();
  if (ms > 0) await ctx.sleep(ms);
}
