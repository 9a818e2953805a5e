// The submit activity's first look at the task it just created: one task-result read right after the
// platform accepted it. The workflow gets the task's status and eta with the task id, so its wait
// starts from them (its first poll attempt only asks to run again when the next poll is due) instead
// of needing a workflow task for a first poll's checkpoint: one workflow activation less per
// generation, with the mediaProgress query as fresh as before.
import type { ParsedPollingOptions, TaskObservation } from '../../workflows/media/contract';
import type { PlatformClient } from '../../platform-client/client';
import { isTerminalTaskStatus } from '../../platform/schemas/media';
import { POLL_TIMEOUT_MS } from '../poll-again';
import { nextPollDelayMs } from './poll-schedule';

interface FirstLook {
  /** The task's first observation (its first poll), planned next poll included. */
  observation?: TaskObservation;
  /** Reads made (0 or 1): a failed one, or one that saw the task ended, is a poll too. */
  reads: number;
}

/**
 * No observation when the read fails or the task has already ended: the wait then polls at once, as
 * without a look. Never throws: the submit was accepted, and that must reach the workflow.
 */
export async function firstLook(
  platform: PlatformClient,
  taskId: string,
  polling: ParsedPollingOptions,
  signal: AbortSignal,
): Promise<FirstLook> {
  if (signal.aborted) return { reads: 0 };
  let task;
  try {
    ({ task } = await platform.getTaskResult(taskId, {
      signal,
      timeoutMs: Math.min(POLL_TIMEOUT_MS, platform.config.timeoutMs),
    }));
  } catch {
    return { reads: 1 };
  }
  if (isTerminalTaskStatus(task.status)) return { reads: 1 };
  const observedAt = Date.now();
  const eta = task.eta ?? undefined;
  const progressPercent = task.progress_percent ?? undefined;
  const hinted = (eta !== undefined && eta > 0) || progressPercent !== undefined;
  const delay = nextPollDelayMs(
    polling,
    { at: observedAt, status: task.status, eta, progressPercent },
    undefined,
    hinted ? 0 : 1,
  );
  const observation: TaskObservation = {
    taskId,
    status: task.status,
    reason: task.reason || undefined,
    eta,
    progressPercent,
    polls: 1,
    observedAt,
    nextPollAt: observedAt + delay,
    firstProcessingAt: task.status === 'TASK_STATUS_PROCESSING' ? observedAt : undefined,
  };
  return { observation, reads: 1 };
}
