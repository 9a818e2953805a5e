// budgetGatedJob: runs one job as a child workflow, but only once the member's budget covers it. The
// cost (given, or priced from the worker's table) is reserved through the member's ledger before
// anything that costs money is sent, an optional decision gate judges the content, and the
// reservation is given back when the job ends, however it ends.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { SearchAttributes, statusQuery } from '../../api/contract';
import { FailureType, parseInput } from '../../api/failures';
import type { Activities, PriceBudgetJobResult } from '../../activities/budget/activities';
import { chargesAtMost } from '../../budget/charges';
import { imagesIn, jobQuantities } from '../../budget/quantities';
import { usdText } from '../../platform/money';
import { isoTime } from '../../shared/time';
import { summarized } from '../activity-summary';
import { budgetLedgerWorkflowId, recheckBudgetSignal } from '../budgetLedger/contract';
import { WorkflowType } from '../operations';
import { DEFAULT_DEADLINE_MS, forUpTo, UNTIL_DONE } from '../retry-policies';
import { trackProgress } from '../status';
import { admitThroughLedger, type LedgerAdmission, type RecheckRequest } from './admission';
import {
  budgetJobProgressQuery,
  BudgetGatedJobInput,
  DEFAULT_BUDGET_WAIT,
  type BudgetAdmission,
  type BudgetGatedJobResult,
  type BudgetGatedJobStatus,
  type BudgetJobProgress,
  type ParsedBudgetGatedJobInput,
} from './contract';
import { prepareGate, runGate, type PreparedGate } from './gate';

// Reads the worker's price table: fails only on a job the table cannot price (InvalidInput). A local
// activity, so it runs in the job's first workflow task and the reservation is asked for in that same
// task: a regular one would cost a round trip through the server and one more workflow task (about a
// second of a burst's admission).
const { priceBudgetJob } = proxyLocalActivities<Activities>(
  forUpTo(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 30_000 }),
);
// Giving budget back must not be lost: retried until the ledger has it.
const { releaseMemberBudget } = proxyActivities<Activities>(UNTIL_DONE);

/** Jobs whose input names the paying member and the expected cost (for their own search attributes). */
const TAKES_MEMBER: readonly string[] = [WorkflowType.mediaGeneration, WorkflowType.batchJob];

export type BudgetJobProgressTracker = ReturnType<typeof trackProgress<BudgetGatedJobStatus, BudgetJobProgress>>;

/** The job's result until the release of its reservation is known. */
type ResultBeforeRelease = Omit<BudgetGatedJobResult, 'released'>;

export async function budgetGatedJob(rawInput: BudgetGatedJobInput): Promise<BudgetGatedJobResult> {
  const input = parseInput(BudgetGatedJobInput, rawInput, WorkflowType.budgetGatedJob);
  const gate = prepareGate(input);
  const { workflowId, runId, firstExecutionRunId } = workflowInfo();
  // One reservation per job, whatever happens to its runs and checks: keyed by the job's chain of
  // runs (the first run's id stays the same across a reset, a retried run and continue-as-new), so a
  // reset or retried run asks for the reservation it already holds, and the ledger moves it to that
  // run; a new job that reuses the workflow id is another chain, with its own reservation.
  const reservationId = `${workflowId}@${firstExecutionRunId}`;
  const progress = trackProgress<BudgetGatedJobStatus, BudgetJobProgress>(
    WorkflowType.budgetGatedJob,
    { status: 'PRICING', memberId: input.memberId, onInsufficient: input.onInsufficient, reservationId, checks: 0 },
    { memberId: input.memberId },
  );
  const recheck: RecheckRequest = { asked: false };

  setHandler(statusQuery, () => progress.status.current);
  setHandler(budgetJobProgressQuery, () => progress.current);
  // A top-up (from the member's ledger when budget is freed, or an operator): a job waiting for budget
  // checks again at once (./admission.ts).
  setHandler(recheckBudgetSignal, () => {
    recheck.asked = true;
  });

  // 1. What to reserve: the job's cost (given, or priced by the worker's table), plus the gate's call.
  const priced: PriceBudgetJobResult =
    input.cost === undefined || gate
      ? await summarized(
          priceBudgetJob,
          `price the job of ${input.memberId}`,
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
    const admission = await admitThroughLedger({
      memberId: input.memberId,
      request: { reservationId, cost: reserved, holderWorkflowId: workflowId, holderRunId: runId },
      wait: input.onInsufficient === 'wait' ? (input.wait ?? DEFAULT_BUDGET_WAIT) : undefined,
      progress,
      recheck,
    });
    mayHold = admission.mayHold;
    const record: BudgetAdmission = {
      decision: admission.admitted ? 'admitted' : 'refused',
      reservationId,
      ledgerWorkflowId: budgetLedgerWorkflowId(input.memberId),
      cost,
      costSource: input.cost === undefined ? 'priceTable' : 'input',
      costBreakdown,
      gateCost: priced.gateCost,
      reserved: admission.admitted ? reserved : 0,
      reservedUsd: usdText(admission.admitted ? reserved : 0),
      outstandingAtCheck: admission.answer.outstanding,
      checkedCost: admission.answer.checkedCost,
      checks: admission.checks,
      firstCheckedAt: isoTime(admission.firstCheckedAt),
      decidedAt: isoTime(admission.answer.checkedAt),
      waitedSeconds:
        admission.firstCheckedAt !== undefined && admission.answer.checkedAt !== undefined
          ? (admission.answer.checkedAt - admission.firstCheckedAt) / 1000
          : 0,
    };
    progress.update({ checks: admission.checks });
    result = admission.admitted
      ? await runAdmitted(input, rawInput, record, gate, progress)
      : notAdmitted(input, record, admission, progress);
  } finally {
    if (mayHold) {
      ({ released } = await CancellationScope.nonCancellable(() =>
        summarized(
          releaseMemberBudget,
          `release the reservation of ${input.memberId}`,
        )({ memberId: input.memberId, request: { reservationId, reason: progress.current.status } }),
      ));
    }
  }
  return { ...result, released };
}

/** Not enough budget: a BudgetExceeded failure, or Skipped (a success) when the input says so. */
function notAdmitted(
  input: ParsedBudgetGatedJobInput,
  admission: BudgetAdmission,
  ledger: LedgerAdmission,
  progress: BudgetJobProgressTracker,
): ResultBeforeRelease {
  const waited = input.onInsufficient === 'wait';
  const reason =
    `Member ${input.memberId}'s budget does not cover ${admission.cost + admission.gateCost} ` +
    `(${usdText(admission.cost + admission.gateCost)} USD) on top of ${ledger.answer.outstanding} reserved by ` +
    `its other jobs` +
    (waited ? `, after waiting ${admission.waitedSeconds.toFixed(0)} s (${ledger.checks} checks)` : '') +
    '; nothing was submitted.';
  const skip = input.onInsufficient === 'skip' || (waited && (input.wait ?? DEFAULT_BUDGET_WAIT).onTimeout === 'skip');
  if (!skip) {
    progress.update({ status: 'FAILED' });
    throw ApplicationFailure.create({
      type: FailureType.BudgetExceeded,
      nonRetryable: true,
      message: reason,
      details: [{ admission }],
    });
  }
  progress.update({ status: 'SKIPPED', outcome: 'Skipped' });
  return { outcome: 'Skipped', memberId: input.memberId, reason, admission };
}

async function runAdmitted(
  input: ParsedBudgetGatedJobInput,
  rawInput: BudgetGatedJobInput,
  admission: BudgetAdmission,
  gate: PreparedGate | undefined,
  progress: BudgetJobProgressTracker,
): Promise<ResultBeforeRelease> {
  const base = { memberId: input.memberId, admission };

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
  const childId = `${workflowInfo().workflowId}/${workflowType}`;
  const jobInput = rawInput.job.input as Record<string, unknown>;
  const childInput = TAKES_MEMBER.includes(workflowType)
    ? { ...jobInput, memberId: input.memberId, costEstimate: jobInput.costEstimate ?? admission.cost }
    : jobInput;
  progress.update({ status: 'RUNNING_JOB', childWorkflowId: childId });
  let result: unknown;
  try {
    result = await executeChild(workflowType, {
      workflowId: childId,
      args: [childInput],
      // A parent that ends any other way (terminated, timed out) asks the job to cancel: a batch job
      // then cancels its platform batch instead of running on unowned.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
  } catch (err) {
    progress.update({ status: 'FAILED' });
    // The job's own failure, with its type (GenerationFailed, BatchFailed …), is this run's failure.
    if (err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
  progress.update({ status: 'COMPLETED', outcome: 'Completed' });
  return { ...base, outcome: 'Completed', gate: verdict, job: { workflowType, workflowId: childId, result } };
}
