// Waiting for a submitted task to end. The poll activity retries on its own (retry-as-poll) and comes back only at
// checkpoints (status change, end), so this loop runs a handful of times per task.
import { ApplicationFailure, CancellationScope, condition, proxyActivities, workflowInfo } from '@temporalio/workflow';
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
 * The time a poll's attempts get for waits in the worker: up to the first poll, or the predicted end when later, if
 * at most MAX_IN_ATTEMPT_MS off.
 */
function inAttemptMs(since: TaskObservation | undefined): number | undefined {
  const now = Date.now();
  if (since?.nextPollAt === undefined || since.nextPollAt - now > MAX_IN_ATTEMPT_MS) return undefined;
  return Math.max(since.nextPollAt, predictedEnd(since) ?? 0) - now;
}

/** A run has a few dozen tasks: the oldest end is dropped first. */
const MAX_KEPT = 32;

/** Task ends told by callback (taskCallback), kept by task id: one may come before its submit answered. */
export class TaskCallbackInbox {
  private readonly ends = new Map<string, TaskCallback>();

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
  first?: TaskObservation,
  /** The end may come as a signal: polls are a safety net (no waits in attempts, which no cancel reaches). */
  callbacks?: { inbox: TaskCallbackInbox; fallback: CallbackFallback },
): Promise<TaskCheckpoint> {
  let since: TaskObservation | undefined = first;
  const fallback = callbacks?.fallback;
  for (;;) {
    const { pollTaskResult } = proxyActivities<Activities>(
      retryAsPollOptions(deadlineAt - Date.now(), { inAttemptMs: callbacks ? undefined : inAttemptMs(since) }),
    );
    const summary = `task ${taskId}: ${WAITING}`;
    const poll = () => summarized(pollTaskResult, summary)({ taskId, polling, deadlineAt, since, fallback });
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
      observedAt: Date.now(),
      firstProcessingAt: since?.firstProcessingAt,
    },
    terminal: true,
    outputs: end.outputs,
    nsfwDetection: end.nsfwDetection,
  };
}

function deadlineExceeded(taskId: string, deadlineAt: number, last: TaskObservation | undefined) {
  return ApplicationFailure.nonRetryable(
    `Task ${taskId} did not end before the deadline ${new Date(deadlineAt).toISOString()} ` +
      `(workflow ${workflowInfo().workflowId}); the task may still finish (and be charged) on the platform.`,
    FailureType.DeadlineExceeded,
    { taskId, last },
  );
}
