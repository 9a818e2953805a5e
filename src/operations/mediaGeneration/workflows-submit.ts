// Submitting one generation at most once. Each attempt is its own activity run (no automatic
// retries): a refused attempt is sent again after a backoff, until the generation's deadline (an
// outage delays, it does not end the run); an ambiguous one (it may have created a paid task) follows
// the input's `submission.onAmbiguous` policy, and at most `submission.maxAttempts` of those are made
// per generation, so what a generation can be charged is bounded (src/operations/budgetGatedJob/quantities.ts reserves
// it). Every attempt is recorded.
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
import type { Activities, SubmitFailureDetails, SubmitMediaTaskInput } from './activities';
import type { SubmitMediaTaskResult } from './activities';
import { isoTime } from '../../shared/time';
import { startedByReset, SUBMIT_ONCE } from '../../workflows/retry-policies';
import { paidCall } from '../../workflows/activity-summary';

/**
 * 1.1: a submit below the interactive class that waited `submission.priorityAgingMs` for its turn is
 * sent again one class up; runs started before waited at their class until the deadline.
 */
const SUBMIT_AGING = 'submit-priority-aging';

/**
 * 1.1: a submit attempt that timed out without its sending mark (src/activities/earlier-runs.ts, markSending)
 * was never sent, and is sent again; runs started before took every timed-out attempt as ambiguous.
 */
const SUBMIT_LOST_UNSENT = 'submit-lost-unsent';

/**
 * 1.2: in a run a reset started, a generation's submit first looks for the earlier run's answered submit on
 * the workflow's own queue, unpaced, and takes its turn on the quota only when there is none; runs started
 * before waited for a turn on the quota to take the earlier answer.
 */
const SUBMIT_RESET_LOOKS_UP_FIRST = 'submit-reset-looks-up-first';

/**
 * Costs money. Retried while the first attempt may still be in flight? Never by the server (one
 * attempt per run, SUBMIT_ONCE); the workflow sends again only what the platform clearly refused, or,
 * with onAmbiguous "resubmit", knowingly risks a duplicate and counts it (possibleDuplicates).
 * Sent on its quota's task queue, which the server paces for every worker (docs/rate-limits.md), in
 * the run's priority class and fair-share key (the member's when the start named none). It may wait
 * there for its turn until the deadline, or below the interactive class `submission.priorityAgingMs`,
 * after which it is sent again one class up, so no class waits behind the ones above it for ever
 * (docs/fairness.md). A schedule-to-start timeout means no worker ever took it: nothing was sent.
 */
function submitOnQuotaQueue(
  operation: string,
  deadlineAt: number,
  priority: { priorityKey: number; fairnessKey: string },
  agingMs: number,
) {
  const untilDeadline = Math.max(1_000, deadlineAt - Date.now());
  return proxyActivities<Activities>({
    ...SUBMIT_ONCE,
    taskQueue: quotaTaskQueue(workflowInfo().taskQueue, operation),
    priority,
    scheduleToStartTimeout:
      priority.priorityKey > PRIORITY_CLASSES.interactive ? Math.min(untilDeadline, agingMs) : untilDeadline,
  }).submitMediaTask;
}

/** The reset run's look-up of the earlier run's submit (lookUpEarlierSubmit): the workflow's own queue, no pace. */
const lookUpOnOwnQueue = () => proxyActivities<Activities>(SUBMIT_ONCE).submitMediaTask;

/** Whether a look-up found no earlier submit to take (it sent nothing). */
const nothingEarlier = (err: unknown): boolean =>
  err instanceof ActivityFailure &&
  err.cause instanceof ApplicationFailure &&
  err.cause.type === FailureType.NothingEarlier;

/** The "async" form's model, from the bundled registry: the input was checked against it, so it is known. */
export function resolvedModel(input: ParsedMediaGenerationRequestInput & { operation: 'async' }): ResolvedModel {
  const model = MODEL_REGISTRY.resolve(input.model);
  if (!model) throw new Error(`model ${input.model} is not in the registry`);
  return model;
}

/** What a generation submits: the two detailed operations by their own names, any other model by its path. */
function submitTarget(input: ParsedMediaGenerationRequestInput) {
  if (input.operation !== 'async') return { operation: input.operation, request: input.request };
  return { operation: 'async' as const, model: input.model, path: resolvedModel(input).path, request: input.request };
}

const OUTCOMES: readonly NonNullable<SubmitFailureDetails['outcome']>[] = ['refused', 'ambiguous', 'rejected'];

function describeFailure(err: unknown) {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as SubmitFailureDetails | undefined;
    // The activity decides the outcome (src/operations/mediaGeneration/activities.ts); this only acts on it. Without
    // one, the activity met an error it did not expect, which may have come after the request was sent.
    const decided = details?.outcome;
    const outcome = decided && OUTCOMES.includes(decided) ? decided : cause.nonRetryable ? 'rejected' : 'ambiguous';
    return { outcome, type: cause.type ?? 'Error', message: cause.message, details, cause };
  }
  if (cause instanceof TimeoutFailure && cause.timeoutType === TimeoutType.SCHEDULE_TO_START) {
    // Still waiting for its turn on the quota's queue (at the deadline, or long enough to move up): never sent.
    return {
      outcome: 'refused' as const,
      type: 'ActivityTimeout',
      message: 'no turn on the quota yet',
      cause,
      aged: true,
    };
  }
  if (cause instanceof TimeoutFailure) {
    if (!markedSending(cause.lastHeartbeatDetails) && patched(SUBMIT_LOST_UNSENT)) {
      // No worker got as far as sending (one may never have received the attempt): nothing was sent.
      const message = 'the submit attempt timed out before it was sent';
      return { outcome: 'refused' as const, type: 'ActivityTimeout', message, cause };
    }
    // The worker running the attempt was lost: it may have sent the request before it went.
    return { outcome: 'ambiguous' as const, type: 'ActivityTimeout', message: 'the submit attempt timed out', cause };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { outcome: 'ambiguous' as const, type: 'Unknown', message, cause };
}

/** One generation's submit attempts: the class and share they wait in, and what the ambiguous ones risked. */
class SubmitAttempts {
  /** Unset fields mean the server's defaults: the middle class, and one shared key for everyone. */
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

  /** One attempt: after a reset, the task an earlier run's same submit created is taken (src/activities/earlier-runs.ts). */
  send(attempt: number): Promise<SubmitMediaTaskResult> {
    const { input, generation, priorityKey, fairnessKey, lookUpFirst } = this;
    // operation and request were parsed together, so they match.
    return paidCall(
      lookUpFirst
        ? lookUpOnOwnQueue()
        : submitOnQuotaQueue(
            input.operation,
            this.deadlineAt,
            { priorityKey, fairnessKey },
            input.submission.priorityAgingMs,
          ),
      `${lookUpFirst ? 'take the earlier run’s submit of' : 'submit'} ${input.operation}` +
        `${input.memberId ? ` for ${input.memberId}` : ''} (generation ${generation}, ` +
        `attempt ${attempt}; ${priorityClassOf(priorityKey)}` +
        `${fairnessKey === input.memberId ? '' : `, share of ${fairnessKey}`})`,
    )({
      ...submitTarget(input),
      generation,
      attempt,
      // The activity reads the accepted task once: the wait starts from its status and eta.
      polling: input.polling,
      ...(lookUpFirst && { lookUpOnly: true }),
    } as SubmitMediaTaskInput);
  }

  /** A failed attempt, recorded: how long to wait before the next (0: at once), or the failure that ends the submit. */
  afterFailure(err: unknown, attempt: number, possibleDuplicate: true | undefined): number {
    const { submission } = this.input;
    const f = describeFailure(err);
    const error = { type: f.type, message: f.message };
    this.record(attempt, possibleDuplicate, {
      at: f.details ? isoTime(f.details.at) : undefined,
      outcome: f.outcome,
      error,
    });
    if (f.outcome === 'rejected') throw f.cause;
    if (f.outcome === 'ambiguous') {
      if (submission.onAmbiguous === 'fail') throw this.ambiguousFailure(attempt, f.message);
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
    // Never past the deadline: the last attempt is made at it.
    return Math.max(1, Math.min(Math.max(backoff, f.details?.retryAfterMs ?? 0), left));
  }

  private ambiguousFailure(attempt: number, message: string): ApplicationFailure {
    return ApplicationFailure.create({
      type: FailureType.AmbiguousSubmission,
      nonRetryable: true,
      message:
        `Submit attempt ${attempt} of generation ${this.generation} may have created a task on the platform ` +
        `but returned no task id (${message}). It was not sent again, so as not to pay twice ` +
        `(submission.onAmbiguous is "fail"); check the platform's bills before starting again.`,
      details: [{ attempts: this.attempts }],
    });
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
