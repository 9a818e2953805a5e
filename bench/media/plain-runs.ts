// The two baselines without durability: a plain Node script that submits and polls, either every
// second (what the platform's own SDK does) or by the same eta-aware schedule as our workflows.
import { setTimeout as sleep } from 'node:timers/promises';
import { nextPollDelayMs, type PollSample } from '../../src/operations/mediaGeneration/activities-poll';
import { isTerminalTaskStatus, PollingOptions } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';

export interface TaskRun {
  taskId: string;
  /** Real epoch ms: the run began, the platform took the submit, the run saw the end, the caller had the result. */
  startedAt: number;
  submittedAt: number;
  detectedAt: number;
  resolvedAt: number;
  polls: number;
}

export async function fixedIntervalRun(platform: PlatformClient, prompt: string, intervalMs = 1_000): Promise<TaskRun> {
  const startedAt = Date.now();
  const { task_id } = await platform.submitTextToVideo({ prompt });
  const submittedAt = Date.now();
  for (let polls = 1; ; polls++) {
    await sleep(intervalMs);
    const result = await platform.getTaskResult(task_id);
    if (isTerminalTaskStatus(result.task.status)) {
      const now = Date.now();
      return { taskId: task_id, startedAt, submittedAt, detectedAt: now, resolvedAt: now, polls };
    }
  }
}

export async function etaAwareRun(platform: PlatformClient, prompt: string): Promise<TaskRun> {
  const opts = PollingOptions.parse({});
  const startedAt = Date.now();
  const { task_id } = await platform.submitTextToVideo({ prompt });
  const submittedAt = Date.now();
  let previous: PollSample | undefined;
  let hintless = 0;
  for (let polls = 1; ; polls++) {
    const result = await platform.getTaskResult(task_id);
    const at = Date.now();
    if (isTerminalTaskStatus(result.task.status)) {
      return { taskId: task_id, startedAt, submittedAt, detectedAt: at, resolvedAt: at, polls };
    }
    const sample: PollSample = {
      observedAt: at,
      status: result.task.status,
      eta: result.task.eta ?? undefined,
      progressPercent: result.task.progress_percent ?? undefined,
    };
    hintless = sample.eta || sample.progressPercent ? 0 : hintless + 1;
    await sleep(nextPollDelayMs(opts, sample, previous, hintless));
    previous = sample;
  }
}
