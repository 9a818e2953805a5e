// Submitting one generation at most once, one activity run per attempt: a refused attempt is sent again after a
// backoff until the deadline; an ambiguous one follows `submission.onAmbiguous`, at most `submission.maxAttempts`
// per generation, so what a generation can be charged is bounded. Every attempt is recorded.
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  sleep,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';
import {
  FailureType,
  markedSending,
  MODEL_REGISTRY,
  type ParsedMediaGenerationRequestInput,
  PRIORITY_CLASSES,
  priorityClassOf,
  quotaTaskQueue,
  type ResolvedModel,
  SHARED_FAIRNESS_KEY,
  type SubmissionAttempt,
} from '@platform-ops/client';
import type { Activities, SubmitFailureDetails, SubmitMediaTaskInput, SubmitMediaTaskResult } from './activities';
import { isoTime } from '../../shared/time';
import { startedByReset, SUBMIT_ONCE } from '../../workflows/retry-policies';
import { paidCall } from '../../workflows/activity-summary';

/** 1.1: a submit below the interactive class that waited `submission.priorityAgingMs` is sent one class up. */
const SUBMIT_AGING = 'submit-priority-aging';

/** 1.1: a submit attempt that timed out without its sending mark (markSending) was never sent. */
const SUBMIT_LOST_UNSENT = 'submit-lost-unsent';

/** 1.2: a reset run's submit first looks for the earlier run's answer on the workflow's own queue, unpaced. */
const SUBMIT_RESET_LOOKS_UP_FIRST = 'submit-reset-looks-up-first';

/**
 * Costs money: one attempt per run, on its quota's task queue, which the server paces for every worker
 * (docs/rate-limits.md). Below the interactive class it waits `priorityAgingMs` for its turn (docs/fairness.md).
 */
function submitOnQuotaQueue(
  input: ParsedMediaGenerationRequestInput,
  deadlineAt: number,
  priority: { priorityKey: number; fairnessKey: string },
) {
  const untilDeadline = Math.max(1_000, deadlineAt - Date.now());
  const agingMs = input.submission.priorityAgingMs;
  return proxyActivities<Activities>({
    ...SUBMIT_ONCE,
    taskQueue: quotaTaskQueue(workflowInfo().taskQueue, input.operation),
    priority,
    scheduleToStartTimeout:
      priority.priorityKey > PRIORITY_CLASSES.interactive ? Math.min(untilDeadline, agingMs) : untilDeadline,
  }).submitMediaTask;
}

const nothingEarlier = (err: unknown): boolean =>
  err instanceof ActivityFailure &&
  err.cause instanceof ApplicationFailure &&
  err.cause.type === FailureType.NothingEarlier;

/** The "async" form's model: the input was checked against the registry, so it is known. */
export function resolvedModel(input: ParsedMediaGenerationRequestInput & { operation: 'async' }): ResolvedModel {
  const model = MODEL_REGISTRY.resolve(input.model);
  if (!model) throw new Error(`model ${input.model} is not in the registry`);
  return model;
}

function submitTarget(input: ParsedMediaGenerationRequestInput) {
  if (input.operation !== 'async') return { operation: input.operation, request: input.request };
  return { operation: 'async' as const, model: input.model, path: resolvedModel(input).path, request: input.request };
}

const OUTCOMES: readonly NonNullable<SubmitFailureDetails['outcome']>[] = ['refused', 'ambiguous', 'rejected'];

function describeFailure(err: unknown) {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as SubmitFailureDetails | undefined;
    // The activity decides the outcome; without one, its error may have come after the request was sent.
    const decided = details?.outcome;
    const outcome = decided && OUTCOMES.includes(decided) ? decided : cause.nonRetryable ? 'rejected' : 'ambiguous';
    return { outcome, type: cause.type ?? 'Error', message: cause.message, details, cause };
  }
  if (cause instanceof TimeoutFailure && cause.timeoutType === TimeoutType.SCHEDULE_TO_START) {
    // Still waiting for its turn on the quota's queue: never sent.
    const message = 'no turn on the quota yet';
    return { outcome: 'refused' as const, type: 'ActivityTimeout', message, cause, aged: true };
  }
  if (cause instanceof TimeoutFailure) {
    if (!markedSending(cause.lastHeartbeatDetails) && patched(SUBMIT_LOST_UNSENT)) {
      const message = 'the submit attempt timed out before it was sent';
      return { outcome: 'refused' as const, type: 'ActivityTimeout', message, cause };
    }
    // The worker was lost: it may have sent the request before it went.
    return { outcome: 'ambiguous' as const, type: 'ActivityTimeout', message: 'the submit attempt timed out', cause };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { outcome: 'ambiguous' as const, type: 'Unknown', message, cause };
}

class SubmitAttempts {
  priorityKey: number;
  readonly fairnessKey: string;
  mayExistAlready = false;
  ambiguous = 0;
  lookUpFirst: boolean;

  constructor(
    readonly input: ParsedMediaGenerationRequestInput,
    readonly generation: number,
    readonly attempts: SubmissionAttempt[],
    readonly onAttempt: () => void,
    readonly deadlineAt: number,
  ) {
    // Unset fields mean the server's defaults: the middle class, and one shared key for everyone.
    const startedAs = workflowInfo().priority;
    this.priorityKey = startedAs?.priorityKey || PRIORITY_CLASSES.scheduled;
    this.fairnessKey = startedAs?.fairnessKey || input.memberId || SHARED_FAIRNESS_KEY;
    this.lookUpFirst = startedByReset() && patched(SUBMIT_RESET_LOOKS_UP_FIRST);
  }

  record(
    attempt: number,
    possibleDuplicate: true | undefined,
    a: Omit<SubmissionAttempt, 'generation' | 'attempt' | 'possibleDuplicate'>,
  ) {
    this.attempts.push({ generation: this.generation, attempt, ...a, possibleDuplicate });
    this.onAttempt();
  }

  send(attempt: number): Promise<SubmitMediaTaskResult> {
    const { input, generation, priorityKey, fairnessKey, lookUpFirst } = this;
    return paidCall(
      lookUpFirst
        ? proxyActivities<Activities>(SUBMIT_ONCE).submitMediaTask
        : submitOnQuotaQueue(input, this.deadlineAt, { priorityKey, fairnessKey }),
      `${lookUpFirst ? 'take the earlier run’s submit of' : 'submit'} ${input.operation}` +
        `${input.memberId ? ` for ${input.memberId}` : ''} (generation ${generation}, ` +
        `attempt ${attempt}; ${priorityClassOf(priorityKey)}` +
        `${fairnessKey === input.memberId ? '' : `, share of ${fairnessKey}`})`,
    )({
      ...submitTarget(input),
      generation,
      attempt,
      polling: input.polling,
      ...(lookUpFirst && { lookUpOnly: true }),
    } as SubmitMediaTaskInput);
  }

  /** Records a failed attempt: how long to wait before the next (0: at once), or throws what ends the submit. */
  afterFailure(err: unknown, attempt: number, possibleDuplicate: true | undefined): number {
    const { submission } = this.input;
    const f = describeFailure(err);
    const at = f.details ? isoTime(f.details.at) : undefined;
    this.record(attempt, possibleDuplicate, { at, outcome: f.outcome, error: { type: f.type, message: f.message } });
    if (f.outcome === 'rejected') throw f.cause;
    if (f.outcome === 'ambiguous') {
      if (submission.onAmbiguous === 'fail') {
        throw ApplicationFailure.create({
          type: FailureType.AmbiguousSubmission,
          nonRetryable: true,
          message:
            `Submit attempt ${attempt} of generation ${this.generation} may have created a task on the platform ` +
            `but returned no task id (${f.message}). It was not sent again, so as not to pay twice ` +
            `(submission.onAmbiguous is "fail"); check the platform's bills before starting again.`,
          details: [{ attempts: this.attempts }],
        });
      }
      this.mayExistAlready = true;
      this.ambiguous++;
    }
    const left = this.deadlineAt - Date.now();
    if (f.aged && left > 0 && this.priorityKey > PRIORITY_CLASSES.interactive && patched(SUBMIT_AGING)) {
      // Never sent: it goes again at once, one class up, and keeps its fair-share key.
      this.priorityKey--;
      return 0;
    }
    if (this.ambiguous >= submission.maxAttempts || left <= 0) {
      throw ApplicationFailure.create({
        type: left <= 0 ? FailureType.DeadlineExceeded : f.type,
        nonRetryable: true,
        message:
          `Gave up submitting generation ${this.generation} after ${attempt} attempts ` +
          (left <= 0 ? 'at the deadline' : `(${this.ambiguous} may have created a task)`) +
          `; the last: ${f.message}`,
        details: [{ attempts: this.attempts }],
      });
    }
    const backoff = Math.min(submission.backoffMaxMs, submission.backoffInitialMs * 2 ** Math.min(attempt - 1, 30));
    return Math.max(1, Math.min(Math.max(backoff, f.details?.retryAfterMs ?? 0), left));
  }
}

export async function submitGeneration(
  input: ParsedMediaGenerationRequestInput,
  generation: number,
  attempts: SubmissionAttempt[],
  onAttempt: () => void,
  deadlineAt: number,
): Promise<SubmitMediaTaskResult> {
  const submits = new SubmitAttempts(input, generation, attempts, onAttempt, deadlineAt);
  for (let attempt = 1; ; attempt++) {
    const possibleDuplicate = submits.mayExistAlready || undefined;
    try {
      const res = await submits.send(attempt);
      submits.record(attempt, possibleDuplicate, {
        at: isoTime(res.submittedAt),
        outcome: 'accepted',
        taskId: res.taskId,
        resumed: res.resumed,
      });
      return res;
    } catch (err) {
      if (isCancellation(err)) throw err;
      if (submits.lookUpFirst && nothingEarlier(err)) {
        // Nothing to take, nothing sent: the same attempt goes to the quota, unrecorded.
        submits.lookUpFirst = false;
        attempt--;
        continue;
      }
      const waitMs = submits.afterFailure(err, attempt, possibleDuplicate);
      if (waitMs > 0) await sleep(waitMs);
    }
  }
}
