// The two baselines without durability: a plain Node script that submits and polls, either every
// second (what the platform's own SDK does) or by the same eta-aware schedule as our workflows.
import { setTimeout as sleep } from 'node:timers/promises';
import { nextPollDelayMs, type PollSample } from '../../src/operations/mediaGeneration/activities-poll';
import { isTerminalTaskStatus, PollingOptions } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';
import type { BenchStack } from '../support/stack';
import { mean, percentile, round } from '../support/stats';

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

export interface ModeFigures {
  mode: string;
  tasks: number;
  pollsPerTask: number;
  totalPolls: number;
  detectionP50Ms: number;
  detectionP95Ms: number;
  /** From the run's start to the platform taking the submit, and from noticing the end to the caller having the result. */
  submitLagP95Ms: number;
  resultLagP95Ms: number;
  makespanS: number;
}

export type Emulator = Pick<BenchStack, 'admin'>;

interface TaskView {
  createdAtReal: number;
  finishedAtReal: number | null;
}

/** A mode's polls, detection and lags, from the emulator's own records of its tasks. */
export async function modeFigures(
  emu: Emulator,
  mode: string,
  runs: TaskRun[],
  makespanMs: number,
): Promise<{ figures: ModeFigures; waits: Array<{ from: number; to: number }> }> {
  const counters = await emu.admin<{ polls: { byTask: Record<string, number> } }>('GET', '/counters');
  const delays: number[] = [];
  const polls: number[] = [];
  const waits: Array<{ from: number; to: number }> = [];
  for (const run of runs) {
    const task = await emu.admin<TaskView>('GET', `/tasks/${run.taskId}`);
    const finished = task.finishedAtReal ?? Date.now();
    delays.push(run.detectedAt - finished);
    waits.push({ from: task.createdAtReal, to: finished });
    // The emulator's own count, not the runner's claim.
    polls.push(counters.polls.byTask[run.taskId] ?? 0);
  }
  return {
    waits,
    figures: {
      mode,
      tasks: runs.length,
      pollsPerTask: round(mean(polls)),
      totalPolls: polls.reduce((a, b) => a + b, 0),
      detectionP50Ms: Math.round(percentile(delays, 50)),
      detectionP95Ms: Math.round(percentile(delays, 95)),
      submitLagP95Ms: Math.round(
        percentile(
          runs.map((r) => r.submittedAt - r.startedAt),
          95,
        ),
      ),
      resultLagP95Ms: Math.round(
        percentile(
          runs.map((r) => r.resolvedAt - r.detectedAt),
          95,
        ),
      ),
      makespanS: round(makespanMs / 1000),
    },
  };
}

export async function timed(n: number, run: (i: number) => Promise<TaskRun>): Promise<{ runs: TaskRun[]; ms: number }> {
  const started = Date.now();
  const runs = await Promise.all(Array.from({ length: n }, (_, i) => run(i)));
  return { runs, ms: Date.now() - started };
}
