// Waiting for a submitted task to end. The poll activity runs again on its own (retry-as-poll,
// src/operations/mediaGeneration/activities-poll.ts) and comes back only at checkpoints (status change, end), so this loop runs a
// handful of times per task however many polls are made.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import {
  FailureType,
  isTerminalTaskStatus,
  type ParsedPollingOptions,
  predictedEnd,
  TaskCallback,
  type TaskObservation,
} from '@platform-ops/client';
import type { Activities, CallbackFallback, TaskCheckpoint } from './activities';
import { MAX_IN_ATTEMPT_MS, pollTimedOut, retryAsPollOptions } from '../../workflows/retry-policies';
import { summarized, WAITING } from '../../workflows/activity-summary';

/**
 * 1.1: a poll planned at most MAX_IN_ATTEMPT_MS off gives its attempts the time to wait for it, and for the
 * predicted end, in the worker (retryAsPollOptions' inAttemptMs), sparing retries; runs started before gave
 * every attempt 15 s.
 */
const POLL_WAITS_IN_ATTEMPT = 'poll-waits-in-attempt';

/**
 * The time a poll's attempts get for waits in the worker, when the first poll is near enough: up to that
 * poll, or to the predicted end when it is later (the hints' steps towards it may be made in the attempt).
 * Not on a callback's safety net: the callback's cancel would not reach a wait in the worker.
 */
function inAttemptMs(since: TaskObservation | undefined): number | undefined {
  const now = Date.now();
  if (since?.nextPollAt === undefined || since.nextPollAt - now > MAX_IN_ATTEMPT_MS) return undefined;
  if (!patched(POLL_WAITS_IN_ATTEMPT)) return undefined;
  return Math.max(since.nextPollAt, predictedEnd(since) ?? 0) - now;
}

/** Ends kept at most (a run has a few dozen tasks); the oldest is dropped first, its task long past. */
const MAX_KEPT = 32;

/** Task ends told by callback (taskCallback), kept by task id: one may come before its submit answered. */
export class TaskCallbackInbox {
  private readonly ends = new Map<string, TaskCallback>();

  /** Keeps a valid terminal end not seen before; returns whether it was kept. */
  add(raw: unknown): boolean {
    const parsed = TaskCallback.safeParse(raw);
    if (!parsed.success || !isTerminalTaskStatus(parsed.data.status)) return false;
    const end = parsed.data;
    if (this.ends.has(end.taskId)) return false;
    if (this.ends.size >= MAX_KEPT) this.ends.delete(this.ends.keys().next().value!);
    this.ends.set(end.taskId, end);
    return true;
  }

  endOf(taskId: string): TaskCallback | undefined {
    return this.ends.get(taskId);
  }
}

export async function waitForTaskEnd(
  taskId: string,
  polling: ParsedPollingOptions,
  deadlineAt: number,
  onCheckpoint: (observation: TaskObservation) => void,
  /** The submit's first look at the task (not ended): the wait starts from it. */
  first?: TaskObservation,
  /** The submit carried a callback URL: the end may come as a signal, and polls are only a safety net. */
  callbacks?: { inbox: TaskCallbackInbox; fallback: CallbackFallback },
): Promise<TaskCheckpoint> {
  let since: TaskObservation | undefined = first;
  for (;;) {
    const { pollTaskResult } = proxyActivities<Activities>(
      retryAsPollOptions(deadlineAt - Date.now(), { inAttemptMs: callbacks ? undefined : inAttemptMs(since) }),
    );
    const poll = () =>
      summarized(
        pollTaskResult,
        `task ${taskId}: ${WAITING}`,
      )({
        taskId,
        polling,
        deadlineAt,
        since,
        fallback: callbacks?.fallback,
      });
    let checkpoint: TaskCheckpoint;
    try {
      checkpoint = callbacks ? await pollOrCallback(poll, taskId, callbacks.inbox, since) : await poll();
    } catch (err) {
      throw pollTimedOut(err) ? deadlineExceeded(taskId, deadlineAt, since) : err;
    }
    onCheckpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint;
    since = checkpoint.observation;
  }
}

/** The poll's checkpoint, or the callback's if it comes first (the poll is then cancelled: no platform call). */
async function pollOrCallback(
  poll: () => Promise<TaskCheckpoint>,
  taskId: string,
  inbox: TaskCallbackInbox,
  since: TaskObservation | undefined,
): Promise<TaskCheckpoint> {
  const told = () => inbox.endOf(taskId);
  if (!told()) {
    const polled = await CancellationScope.cancellable(async () => {
      const pending = poll();
      const called = condition(() => told() !== undefined);
      // The loser is cancelled below; its rejection is expected, not unhandled.
      pending.catch(() => undefined);
      called.catch(() => undefined);
      try {
        return await Promise.race([pending, called.then(() => undefined)]);
      } finally {
        CancellationScope.current().cancel();
      }
    });
    if (polled) return polled;
  }
  const end = told()!;
  return {
    observation: {
      taskId,
      status: end.status,
      reason: end.reason || undefined,
      polls: since?.polls ?? 0,
      // When the workflow heard of it: what a caller waits for.
      observedAt: Date.now(),
      firstProcessingAt: since?.firstProcessingAt,
    },
    terminal: true,
    outputs: end.outputs,
    nsfwDetection: end.nsfwDetection,
  };
}

function deadlineExceeded(taskId: string, deadlineAt: number, last: TaskObservation | undefined) {
  return ApplicationFailure.create({
    type: FailureType.DeadlineExceeded,
    nonRetryable: true,
    message:
      `Task ${taskId} did not end before the deadline ${new Date(deadlineAt).toISOString()} ` +
      `(workflow ${workflowInfo().workflowId}); the task may still finish (and be charged) on the platform.`,
    details: [{ taskId, last }],
  });
}
