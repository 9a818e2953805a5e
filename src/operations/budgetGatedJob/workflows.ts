// budgetGatedJob: runs one job as a child workflow, but only once the member's budget covers it. The
// cost (given, or priced from the worker's table) is reserved through the member's ledger before
// anything that costs money is sent, an optional decision gate judges the content, and the
// reservation is given back when the job ends, however it ends.
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  type BudgetAdmission,
  BudgetGatedJobInput,
  type BudgetGatedJobResult,
  type BudgetGatedJobStatus,
  type BudgetJobProgress,
  budgetJobProgressQuery,
  budgetLedgerWorkflowId,
  DEFAULT_BUDGET_WAIT,
  FailureType,
  parseInput,
  recheckBudgetSignal,
  type ReserveBudgetRequest,
  type ReserveBudgetResult,
  type Resumed,
  SearchAttributes,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, AwaitBudgetAdmissionResult, PriceBudgetJobResult } from './activities';
import { chargesAtMost, imagesIn, jobQuantities } from './quantities';
import { usdText } from '../../platform/money';
import { isoTime } from '../../shared/time';
import { summarized } from '../../workflows/activity-summary';
import { DEFAULT_DEADLINE_MS, forUpTo, UNTIL_DONE, untilAfterStart } from '../../workflows/retry-policies';
import { trackProgress } from '../../workflows/status';
import { prepareGate, runGate } from './workflows-gate';
import { jobInputFor, runJob } from './workflows-job';

// Reads the worker's price table: fails only on a job the table cannot price (InvalidInput). A local
// activity, so it runs in the job's first workflow task and the reservation is asked for in that same
// task: a regular one would cost a round trip through the server and one more workflow task (about a
// second of a burst's admission).
const { priceBudgetJob } = proxyLocalActivities<Activities>(
  forUpTo(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 30_000 }),
);
// Giving budget back must not be lost: retried until the ledger has it.
const { releaseMemberBudget } = proxyActivities<Activities>(UNTIL_DONE);

/** The job's result until the release of its reservation is known. */
type ResultBeforeRelease = Omit<BudgetGatedJobResult, 'released'>;

/** What admission through the ledger came to. */
interface LedgerAdmission {
  /** The deciding answer: the admission, or the last refusal. */
  answer: ReserveBudgetResult;
  checks: number;
  firstCheckedAt?: number;
  /** A check was cancelled mid-flight (by a re-check signal): it may have reserved, so release anyway. */
  mayHold: boolean;
}

export async function budgetGatedJob(rawInput: BudgetGatedJobInput): Promise<BudgetGatedJobResult> {
  const input = parseInput(BudgetGatedJobInput, rawInput, WorkflowType.budgetGatedJob);
  const { memberId } = input;
  const gate = prepareGate(input);
  const { workflowId, runId, firstExecutionRunId } = workflowInfo();
  // One reservation per job, whatever happens to its runs and checks: keyed by the job's chain of
  // runs (the first run's id stays the same across a reset, a retried run and continue-as-new), so a
  // reset or retried run asks for the reservation it already holds, and the ledger moves it to that
  // run; a new job that reuses the workflow id is another chain, with its own reservation.
  const reservationId = `${workflowId}@${firstExecutionRunId}`;
  const progress = trackProgress<BudgetGatedJobStatus, BudgetJobProgress>(
    WorkflowType.budgetGatedJob,
    { status: 'PRICING', memberId, onInsufficient: input.onInsufficient, reservationId, checks: 0 },
    { memberId },
  );
  const wait = input.onInsufficient === 'wait' ? (input.wait ?? DEFAULT_BUDGET_WAIT) : undefined;
  // A re-check asked for by a recheckBudget signal and not yet acted on.
  let recheckAsked = false;

  setHandler(statusQuery, () => progress.status.current);
  setHandler(budgetJobProgressQuery, () => progress.current);
  // A top-up (from the member's ledger when budget is freed, or an operator): a job waiting for budget
  // checks again at once (admitThroughLedger).
  setHandler(recheckBudgetSignal, () => {
    recheckAsked = true;
  });

  // 1. What to reserve: the job's cost (given, or priced by the worker's table), plus the gate's call.
  const priced: PriceBudgetJobResult =
    input.cost === undefined || gate
      ? await summarized(
          priceBudgetJob,
          `price the job of ${memberId}`,
        )({
          job: input.cost === undefined ? jobQuantities(input.job) : undefined,
          gate: gate ? { images: imagesIn(gate.request.state) } : undefined,
        })
      : { gateCost: 0 };
  // A priced job reserves what it can be charged at most (re-generations, possibly paid resubmits); a
  // `cost` given in the input is taken as that already.
  const bound = input.cost === undefined ? chargesAtMost(input.job) : { times: 1 };
  const cost = input.cost ?? priced.cost! * bound.times;
  const costBreakdown =
    bound.times > 1 ? `(${priced.costBreakdown}) × ${bound.times} (${bound.why})` : priced.costBreakdown;
  const reserved = cost + priced.gateCost;
  upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: cost }]);
  progress.update({ cost, gateCost: priced.gateCost });

  // 2. Admission, then the gate and the job; the reservation is released whatever happens.
  let mayHold = true; // until the ledger's answer says nothing is held
  let released = false;
  let result: ResultBeforeRelease;
  try {
    const ledger = await admitThroughLedger({
      reservationId,
      cost: reserved,
      holderWorkflowId: workflowId,
      holderRunId: runId,
    });
    const { answer, firstCheckedAt } = ledger;
    mayHold = ledger.mayHold;
    const admission: BudgetAdmission = {
      decision: answer.admitted ? 'admitted' : 'refused',
      reservationId,
      ledgerWorkflowId: budgetLedgerWorkflowId(memberId),
      cost,
      costSource: input.cost === undefined ? 'priceTable' : 'input',
      costBreakdown,
      gateCost: priced.gateCost,
      reserved: answer.admitted ? reserved : 0,
      reservedUsd: usdText(answer.admitted ? reserved : 0),
      outstandingAtCheck: answer.outstanding,
      checkedCost: answer.checkedCost,
      checks: ledger.checks,
      firstCheckedAt: isoTime(firstCheckedAt),
      decidedAt: isoTime(answer.checkedAt),
      waitedSeconds:
        firstCheckedAt !== undefined && answer.checkedAt !== undefined ? (answer.checkedAt - firstCheckedAt) / 1000 : 0,
    };
    progress.update({ checks: ledger.checks });
    result = answer.admitted ? await runAdmitted(admission) : notAdmitted(admission);
  } finally {
    if (mayHold) {
      ({ released } = await CancellationScope.nonCancellable(() =>
        summarized(
          releaseMemberBudget,
          `release the reservation of ${memberId}`,
        )({ memberId, request: { reservationId, reason: progress.current.status } }),
      ));
    }
  }
  return { ...result, released };

  /**
   * One check through the member's ledger, and for onInsufficient "wait", one long waiting activity
   * that re-checks on a backoff until admitted or past the deadline. A recheckBudget signal cancels the
   * waiting activity and starts another that checks at once: the job's history grows by a few events
   * per signal, never per check.
   */
  async function admitThroughLedger(request: ReserveBudgetRequest): Promise<LedgerAdmission> {
    // Idempotent by reservation id (the ledger answers a repeat with what it holds): retried through any
    // outage of the ledger or the platform's check, until the admission deadline.
    const { reserveMemberBudget } = proxyActivities<Activities>(
      untilAfterStart(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 60_000 }),
    );
    progress.update({ status: 'CHECKING_BUDGET' });
    const first = await summarized(
      reserveMemberBudget,
      `reserve ${request.cost} of ${memberId}'s budget`,
    )({ memberId, request: { ...request, waiting: wait !== undefined } });
    const firstCheckedAt = first.checkedAt;
    if (first.admitted || !wait) return { answer: first, checks: 1, firstCheckedAt, mayHold: first.admitted };

    // Waiting, from the first refusal (the worker's clock: workflow code keeps none of its own).
    const deadlineAt = (first.checkedAt ?? 0) + wait.timeoutSeconds * 1000;
    progress.update({
      status: 'WAITING_FOR_BUDGET',
      checks: 1,
      lastRefusal: { checkedCost: first.checkedCost, outstanding: first.outstanding, at: isoTime(first.checkedAt) },
      waitingSince: isoTime(first.checkedAt),
      waitDeadline: isoTime(deadlineAt),
    });
    const waitMs = wait.timeoutSeconds * 1000 + 5 * 60_000;
    const { awaitBudgetAdmission } = proxyActivities<Activities>({
      ...forUpTo(waitMs, { attemptMs: waitMs, heartbeatMs: 30_000 }),
      // A cancelled check must have stopped before the next one starts.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });

    let cancelledMidCheck = false;
    let checkFirst = false;
    for (;;) {
      if (recheckAsked) checkFirst = true;
      recheckAsked = false;
      const scope = new CancellationScope();
      const waiting = scope.run(() =>
        summarized(
          awaitBudgetAdmission,
          `wait for ${request.cost} of ${memberId}'s budget`,
        )({
          memberId,
          request: { ...request, waiting: true },
          deadlineAt,
          initialIntervalMs: wait.initialIntervalSeconds * 1000,
          maxIntervalMs: wait.maxIntervalSeconds * 1000,
          checkFirst,
        }),
      );
      const signalled = condition(() => recheckAsked).then(() => undefined);
      let waited: AwaitBudgetAdmissionResult | undefined = await Promise.race([waiting, signalled]);
      if (!waited) {
        // A top-up: stop this wait and check again at once.
        scope.cancel();
        waited = await waiting.catch((err: unknown) => {
          if (isCancellation(err)) return undefined;
          throw err;
        });
      }
      if (!waited) {
        cancelledMidCheck = true; // the cancelled attempt may have been admitted; the next check finds it
        checkFirst = true;
        continue;
      }
      // The waiting activity ends only when admitted or past the deadline.
      const answer = waited.admitted ?? waited.lastRefusal ?? first;
      return { answer, checks: 1 + waited.checks, firstCheckedAt, mayHold: cancelledMidCheck || answer.admitted };
    }
  }

  /** Not enough budget: a BudgetExceeded failure, or Skipped (a success) when the input says so. */
  function notAdmitted(admission: BudgetAdmission): ResultBeforeRelease {
    const reason =
      `Member ${memberId}'s budget does not cover ${reserved} (${usdText(reserved)} USD) on top of ` +
      `${admission.outstandingAtCheck} reserved by its other jobs` +
      (wait ? `, after waiting ${admission.waitedSeconds.toFixed(0)} s (${admission.checks} checks)` : '') +
      '; nothing was submitted.';
    if (input.onInsufficient === 'skip' || wait?.onTimeout === 'skip') {
      progress.update({ status: 'SKIPPED', outcome: 'Skipped' });
      return { outcome: 'Skipped', memberId, reason, admission };
    }
    progress.update({ status: 'FAILED' });
    throw ApplicationFailure.create({
      type: FailureType.BudgetExceeded,
      nonRetryable: true,
      message: reason,
      details: [{ admission }],
    });
  }

  async function runAdmitted(admission: BudgetAdmission): Promise<ResultBeforeRelease> {
    const base = { memberId, admission };
    // 3. The gate, before anything the job would pay for.
    let verdict: BudgetGatedJobResult['gate'];
    if (gate) {
      progress.update({ status: 'GATING' });
      verdict = await runGate(gate);
      if (!verdict.passed) {
        progress.update({ status: 'REJECTED', outcome: 'Rejected' });
        return {
          ...base,
          outcome: 'Rejected',
          gate: verdict,
          reason:
            `The gate's "${verdict.passOption}" got ${verdict.probability.toFixed(3)}, below the threshold ` +
            `${verdict.threshold}; the job was not submitted.`,
        };
      }
    }

    // 4. The job, as a child: it shows in the UI under this run, and is cancelled with it.
    const { workflowType } = input.job;
    const childId = `${workflowId}/${workflowType}`;
    progress.update({ status: 'RUNNING_JOB', childWorkflowId: childId });
    const { result: job, resumed: jobResumed } = await runJob(
      childId,
      workflowType,
      jobInputFor(workflowType, rawInput.job.input, memberId, admission.cost),
      () => progress.update({ status: 'FAILED' }),
    );
    progress.update({ status: 'COMPLETED', outcome: 'Completed' });
    const resumed = [verdict?.resumed, jobResumed].filter((r): r is Resumed => r !== undefined);
    if (resumed.length > 0) progress.update({ resumedFrom: resumed[0].runId });
    const done = { workflowType, workflowId: childId, result: job };
    return { ...base, outcome: 'Completed', gate: verdict, job: done, ...(resumed.length > 0 && { resumed }) };
  }
}

// Versioning (docs/versioning.md): a run is short, so it finishes on the build it started on.
setVersioningBehavior('PINNED', budgetGatedJob);
