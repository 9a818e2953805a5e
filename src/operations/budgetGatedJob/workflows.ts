import {
  ApplicationFailure,
  CancellationScope,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import {
  budgetJobProgressQuery,
  BudgetGatedJobInput,
  FailureType,
  recheckBudgetSignal,
  statusQuery,
  type BudgetAdmission,
  type BudgetGatedJobResult,
  type Resumed,
} from '@platform-ops/client';
import type { Activities, PriceBudgetJobResult } from './activities';
import { usdText } from '../../platform/money';
import { summarized } from '../../workflows/activity-summary';
import { DEFAULT_DEADLINE_MS, forUpTo, UNTIL_DONE } from '../../workflows/retry-policies';
import { setVersioningBehavior } from '../../workflows/versioning';
import { runGate } from './workflows-gate';
import { jobInputFor, runJob } from './workflows-job';
import { admitThroughLedger } from './workflows-admit';
import { BudgetJobRun, type JobCost, type ResultBeforeRelease } from './workflows-run';

// Local, so the reservation is asked for in the same workflow task: a regular one would cost a round trip.
const { priceBudgetJob } = proxyLocalActivities<Activities>(
  forUpTo(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 30_000 }),
);
const { releaseMemberBudget } = proxyActivities<Activities>(UNTIL_DONE);

export async function budgetGatedJob(rawInput: BudgetGatedJobInput): Promise<BudgetGatedJobResult> {
  const run = new BudgetJobRun(rawInput);
  setHandler(statusQuery, () => run.progress.status.current);
  setHandler(budgetJobProgressQuery, () => run.progress.current);
  setHandler(recheckBudgetSignal, () => run.askRecheck());

  const cost = run.costed(run.needsPricing ? await priceJob(run) : { gateCost: 0 });
  let released = false;
  let result: ResultBeforeRelease;
  try {
    const admission = run.decided(cost, await admitThroughLedger(run, cost.reserved));
    result = admission.decision === 'admitted' ? await runAdmitted(run, admission) : notAdmitted(run, cost, admission);
  } finally {
    if (run.mayHold) released = await releaseReservation(run);
  }
  return { ...result, released };
}

setVersioningBehavior('PINNED', budgetGatedJob);

function priceJob(run: BudgetJobRun): Promise<PriceBudgetJobResult> {
  return summarized(priceBudgetJob, `price the job of ${run.memberId}`)(run.priceRequest());
}

async function releaseReservation(run: BudgetJobRun): Promise<boolean> {
  const { memberId, reservationId } = run;
  const { released } = await CancellationScope.nonCancellable(() =>
    summarized(
      releaseMemberBudget,
      `release the reservation of ${memberId}`,
    )({ memberId, request: { reservationId, reason: run.progress.current.status } }),
  );
  return released;
}

function notAdmitted(run: BudgetJobRun, { reserved }: JobCost, admission: BudgetAdmission): ResultBeforeRelease {
  const { memberId, wait } = run;
  const reason =
    `Member ${memberId}'s budget does not cover ${reserved} (${usdText(reserved)} USD) on top of ` +
    `${admission.outstandingAtCheck} reserved by its other jobs` +
    (wait ? `, after waiting ${admission.waitedSeconds.toFixed(0)} s (${admission.checks} checks)` : '') +
    '; nothing was submitted.';
  if (run.input.onInsufficient === 'skip' || wait?.onTimeout === 'skip') {
    run.progress.update({ status: 'SKIPPED', outcome: 'Skipped' });
    return { outcome: 'Skipped', memberId, reason, admission };
  }
  run.progress.update({ status: 'FAILED' });
  throw ApplicationFailure.create({
    type: FailureType.BudgetExceeded,
    nonRetryable: true,
    message: reason,
    details: [{ admission }],
  });
}

async function runAdmitted(run: BudgetJobRun, admission: BudgetAdmission): Promise<ResultBeforeRelease> {
  const { memberId, gate, progress } = run;
  const base = { memberId, admission };
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

  const { workflowType } = run.input.job;
  const childId = `${run.workflowId}/${workflowType}`;
  progress.update({ status: 'RUNNING_JOB', childWorkflowId: childId });
  const { result: job, resumed: jobResumed } = await runJob(
    childId,
    workflowType,
    jobInputFor(workflowType, run.rawInput.job.input, memberId, admission.cost),
    () => progress.update({ status: 'FAILED' }),
  );
  progress.update({ status: 'COMPLETED', outcome: 'Completed' });
  const resumed = [verdict?.resumed, jobResumed].filter((r): r is Resumed => r !== undefined);
  if (resumed.length > 0) progress.update({ resumedFrom: resumed[0].runId });
  const done = { workflowType, workflowId: childId, result: job };
  return { ...base, outcome: 'Completed', gate: verdict, job: done, ...(resumed.length > 0 && { resumed }) };
}
