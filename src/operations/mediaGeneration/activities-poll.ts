// Waiting for a task by retry-as-poll (src/activities/retries.ts): an attempt returns a checkpoint only on a status
// change or the end, so the history grows by a few events per task however many polls are made.
import { Context } from '@temporalio/activity';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import {
  FailureType,
  isTerminalTaskStatus,
  outputsOf,
  type ParsedPollingOptions,
  predictedEnd,
  type TaskObservation,
  type TaskOutputRef,
  type TaskResult,
} from '@platform-ops/client';
import type { PlatformClient } from '../../platform-client/client';
import {
  awaitPollTurn,
  errorBackoffMs,
  pollAgainIn,
  pollRead,
  pollTimeoutMs,
  recordPollCount,
  waitInAttempt,
} from '../../activities/retries';

export interface PollTaskInput {
  taskId: string;
  polling: ParsedPollingOptions;
  deadlineAt: number;
  /** The last checkpoint: its poll count, when the next poll is due, and the sample progress is measured from. */
  since?: TaskObservation;
  fallback?: CallbackFallback;
}

/** Polls while a callback is expected (a lost one delays the result): first at `firstPollAt`, then sparse. */
export type CallbackFallback = { firstPollAt: number; pollIntervalMs: number };

export interface TaskCheckpoint {
  observation: TaskObservation;
  terminal: boolean;
  outputs: TaskOutputRef[];
  nsfwDetection: boolean;
}

function observe(task: TaskResult['task'], taskId: string, polls: number, since?: TaskObservation): TaskObservation {
  const observedAt = Date.now();
  return {
    taskId,
    status: task.status,
    reason: task.reason || undefined,
    eta: task.eta ?? undefined,
    progressPercent: task.progress_percent ?? undefined,
    polls,
    observedAt,
    firstProcessingAt: since?.firstProcessingAt ?? (task.status === 'TASK_STATUS_PROCESSING' ? observedAt : undefined),
  };
}

function hintedDelayMs(
  polling: ParsedPollingOptions,
  o: TaskObservation,
  since: TaskObservation | undefined,
  attempt: number,
) {
  const hinted = (o.eta !== undefined && o.eta > 0) || o.progressPercent !== undefined;
  return nextPollDelayMs(polling, o, since, hinted ? 0 : attempt);
}

/** The submit's read of its task, so the wait starts from its status and eta. Never throws: the submit must land. */
export async function firstLook(
  platform: PlatformClient,
  taskId: string,
  polling: ParsedPollingOptions,
  signal: AbortSignal,
): Promise<{ observation?: TaskObservation; reads: number }> {
  if (signal.aborted) return { reads: 0 };
  try {
    const { task } = await platform.getTaskResult(taskId, { signal, timeoutMs: pollTimeoutMs(platform) });
    if (isTerminalTaskStatus(task.status)) return { reads: 1 };
    const observation = observe(task, taskId, 1);
    const nextPollAt = observation.observedAt + hintedDelayMs(polling, observation, undefined, 1);
    return { observation: { ...observation, nextPollAt }, reads: 1 };
  } catch {
    return { reads: 1 };
  }
}

const STILL_WANTED_TIMEOUT_MS = 5_000;
const CANCEL_REQUESTED: temporal.api.enums.v1.PendingActivityState = 3;
const NOT_FOUND = 5;

/**
 * Asked with one describe of the run, which Temporal Cloud does not bill (a heartbeat is an Action): a pause
 * (`incident pause-polling`), a cancel or a later attempt says no, an unreachable server nothing.
 */
async function stillWanted(temporal: Client | undefined, ctx: Context): Promise<boolean> {
  if (!temporal) return true;
  const { workflowNamespace: namespace, workflowExecution: execution, activityId, attempt } = ctx.info;
  try {
    const { pendingActivities } = await temporal.connection.withDeadline(Date.now() + STILL_WANTED_TIMEOUT_MS, () =>
      temporal.workflowService.describeWorkflowExecution({ namespace, execution }),
    );
    const mine = pendingActivities?.find((a) => a.activityId === activityId);
    return !!mine && !mine.paused && mine.state !== CANCEL_REQUESTED && mine.attempt === attempt;
  } catch (err) {
    return !(isGrpcServiceError(err) && (err.code as number) === NOT_FOUND);
  }
}

export function createMediaPollActivities(platform: PlatformClient, temporal?: Client) {
  return {
    async pollTaskResult(input: PollTaskInput): Promise<TaskCheckpoint> {
      const ctx = Context.current();
      const planned = input.since ?? (input.fallback && { nextPollAt: input.fallback.firstPollAt });
      const before = input.since?.polls ?? 0;
      const readMs = pollTimeoutMs(platform);
      // The reads since the checkpoint, each counted as it starts (a failed one counts).
      const wanted = () => stillWanted(temporal, ctx);
      let polls = before + (await awaitPollTurn(ctx, input.taskId, planned, input.deadlineAt, readMs, wanted)) - 1;
      try {
        return await pollUntilCheckpoint(ctx, input, readMs, () => ++polls, wanted);
      } catch (err) {
        recordPollCount(ctx, planned, polls - before);
        throw err;
      }
    },
  };

  /** Reads until a checkpoint, or fails as StillRunning when the next poll is better made by a retry. */
  async function pollUntilCheckpoint(
    ctx: Context,
    input: PollTaskInput,
    readMs: number,
    nextRead: () => number,
    wanted: () => Promise<boolean>,
  ): Promise<TaskCheckpoint> {
    const { attempt } = ctx.info;
    const { deadlineAt, polling, taskId } = input;
    let since = input.since;
    for (let reads = 1; ; reads++) {
      const now = Date.now();
      if (now >= deadlineAt) throw taskDeadlineExceeded(input, since);
      const untilDeadline = (ms: number) => Math.max(1, Math.min(ms, deadlineAt - now));
      const polls = nextRead();
      const result = await pollRead(
        ctx,
        platform,
        (opts) => platform.getTaskResult(taskId, opts),
        (err) => untilDeadline(errorBackoffMs(err, attempt, polling.minIntervalMs)),
      );
      const observation = observe(result.task, taskId, polls, since);
      const { status } = observation;
      if (isTerminalTaskStatus(status)) {
        return {
          observation,
          terminal: true,
          outputs: status === 'TASK_STATUS_SUCCEED' ? outputsOf(result) : [],
          nsfwDetection: result.extra?.enable_nsfw_detection === true,
        };
      }
      const hinted = hintedDelayMs(polling, observation, since, attempt);
      const delay = untilDeadline(Math.max(hinted, input.fallback?.pollIntervalMs ?? 0));
      const next: TaskObservation = { ...observation, nextPollAt: observation.observedAt + delay };
      // Checkpoints on status changes only; in between, the pending poll's last failure holds what the starter reads.
      const checkpoint = { observation: next, terminal: false, outputs: [], nsfwDetection: false };
      if (status !== since?.status) return checkpoint;
      const stillRunning = (leftMs: number) =>
        pollAgainIn(
          leftMs,
          `${taskId} is ${status} at ${observation.progressPercent ?? '?'}%, eta ${observation.eta ?? '?'} s: ` +
            `next poll in ${leftMs} ms`,
          next,
        );
      // The next read is made here when it fits: at the predicted end, or a long step of the hints. An attempt
      // makes few reads, since a cancel reaches no wait; never on a callback's safety net, whose cancel is usual.
      const remaining = estimateRemainingMs(observation, since);
      const atEnd = remaining !== undefined && remaining <= delay + ETA_STEP_MS;
      const longStep = remaining !== undefined && delay >= IN_ATTEMPT_STEP_MS;
      const inAttempt = (atEnd || longStep) && reads < MAX_READS_PER_ATTEMPT && !input.fallback;
      if (!inAttempt || !(await waitInAttempt(ctx, delay, readMs, stillRunning, wanted))) throw stillRunning(delay);
      since = next;
    }
  }
}

function taskDeadlineExceeded(
  input: { taskId: string; deadlineAt: number },
  last: TaskObservation | undefined,
): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `Task ${input.taskId} did not end before the deadline ${new Date(input.deadlineAt).toISOString()}` +
      (last ? `; last seen ${last.status} at ${last.progressPercent ?? '?'}% after ${last.polls} polls` : '') +
      '. The task may still finish (and be charged) on the platform.',
    FailureType.DeadlineExceeded,
    { taskId: input.taskId, last },
  );
}

// When to poll next (src/operations/mediaGeneration/README.md): just past the end `eta` and `progress_percent`
// predict; far-off ends in steps (hints drift), unless two samples agree; without hints, jittered backoff.
export type PollSample = Pick<TaskObservation, 'observedAt' | 'status' | 'eta' | 'progressPercent'>;

/** The eta is whole seconds, rounded up. */
const ETA_STEP_MS = 1_000;
const IN_ATTEMPT_STEP_MS = 5_000;
const MAX_READS_PER_ATTEMPT = 3;
/** Beyond this, aim at a fraction of the remaining time and look again, instead of at the end. */
const FAR_MS = 20_000;
const FAR_FRACTION = 0.8;
/** Two predicted ends this close (plus a share of the time left) confirm each other. */
const AGREEMENT_MS = 1_000;
const AGREEMENT_SHARE = 0.01;

/** Percent per ms between two samples of one phase, when progress moved. */
function progressRate(latest: PollSample, previous?: PollSample): number | undefined {
  if (
    previous &&
    previous.status === latest.status &&
    latest.progressPercent !== undefined &&
    previous.progressPercent !== undefined &&
    latest.progressPercent > previous.progressPercent &&
    latest.progressPercent < 100
  ) {
    return (latest.progressPercent - previous.progressPercent) / (latest.observedAt - previous.observedAt);
  }
  return undefined;
}

export function estimateRemainingMs(latest: PollSample, previous?: PollSample): number | undefined {
  const estimates: number[] = [];
  if (latest.eta !== undefined && latest.eta > 0) estimates.push(latest.eta * 1000);
  const rate = progressRate(latest, previous);
  if (rate !== undefined) estimates.push((100 - (latest.progressPercent ?? 0)) / rate);
  // The earlier wins: polling a little early costs one cheap poll, polling late costs detection time.
  return estimates.length ? Math.min(...estimates) : undefined;
}

/** Milliseconds left when two samples taken apart predict the same end, so stepping towards it only adds polls. */
function confirmedRemainingMs(latest: PollSample, previous?: PollSample): number | undefined {
  const now = predictedEnd(latest);
  const before = previous && predictedEnd(previous);
  if (now === undefined || before === undefined || previous!.observedAt >= latest.observedAt) return undefined;
  const remaining = Math.min(now, before) - latest.observedAt;
  return Math.abs(now - before) <= AGREEMENT_MS + AGREEMENT_SHARE * Math.max(0, remaining) ? remaining : undefined;
}

export function nextPollDelayMs(
  opts: Pick<ParsedPollingOptions, 'minIntervalMs' | 'maxIntervalMs' | 'marginMs'>,
  latest: PollSample,
  previous: PollSample | undefined,
  hintlessPolls: number,
  random: () => number = Math.random,
): number {
  const confirmed = confirmedRemainingMs(latest, previous);
  const remaining = estimateRemainingMs(latest, previous);
  let delay: number;
  if (confirmed !== undefined) delay = Math.min(confirmed, remaining ?? confirmed) + opts.marginMs;
  else if (remaining !== undefined) {
    if (remaining > FAR_MS) delay = remaining * FAR_FRACTION;
    else if (latest.progressPercent !== undefined && progressRate(latest, previous) === undefined) {
      // The eta is whole seconds, rounded up: aiming at it lands up to a second late. Half-way, a
      // second sample gives the progress rate, and the poll after that lands just past the end.
      delay = remaining / 2;
    } else delay = remaining + opts.marginMs;
  } else {
    const ceiling = Math.min(opts.maxIntervalMs, opts.minIntervalMs * 2 ** Math.min(hintlessPolls, 30));
    delay = opts.minIntervalMs + random() * (ceiling - opts.minIntervalMs);
  }
  return Math.round(Math.min(opts.maxIntervalMs, Math.max(opts.minIntervalMs, delay)));
}
