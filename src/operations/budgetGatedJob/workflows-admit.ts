// A recheckBudget signal cancels the waiting activity and starts another that checks at once: the job's history
// grows by a few events per signal, never per check.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { ParsedBudgetWaitOptions, ReserveBudgetRequest, ReserveBudgetResult } from '@platform-ops/client';
import type { Activities } from './activities';
import type { AwaitBudgetAdmissionResult } from '../../activities/member-budget';
import { summarized } from '../../workflows/activity-summary';
import { DEFAULT_DEADLINE_MS, forUpTo, untilAfterStart } from '../../workflows/retry-policies';
import type { BudgetJobRun, LedgerAdmission } from './workflows-run';

export async function admitThroughLedger(run: BudgetJobRun, cost: number): Promise<LedgerAdmission> {
  const request = run.reservationRequest(cost);
  const { reserveMemberBudget } = proxyActivities<Activities>(
    untilAfterStart(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 60_000 }),
  );
  run.progress.update({ status: 'CHECKING_BUDGET' });
  const first = await summarized(
    reserveMemberBudget,
    `reserve ${request.cost} of ${run.memberId}'s budget`,
  )({ memberId: run.memberId, request: { ...request, waiting: run.wait !== undefined } });
  if (first.admitted || !run.wait) {
    return { answer: first, checks: 1, firstCheckedAt: first.checkedAt, mayHold: first.admitted };
  }
  return waitForBudget(run, request, first, run.wait);
}

// From the first refusal, on the worker's clock: workflow code keeps none of its own.
async function waitForBudget(
  run: BudgetJobRun,
  request: ReserveBudgetRequest,
  first: ReserveBudgetResult,
  wait: ParsedBudgetWaitOptions,
): Promise<LedgerAdmission> {
  const deadlineAt = (first.checkedAt ?? 0) + wait.timeoutSeconds * 1000;
  run.waitingFrom(first, deadlineAt);
  const waitMs = wait.timeoutSeconds * 1000 + 5 * 60_000;
  const { awaitBudgetAdmission } = proxyActivities<Activities>({
    ...forUpTo(waitMs, { attemptMs: waitMs, heartbeatMs: 30_000 }),
    // A cancelled check must have stopped before the next one starts.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  let cancelledMidCheck = false;
  let checkFirst = false;
  for (;;) {
    if (run.takeRecheck()) checkFirst = true;
    const waited = await waitOrRecheck(run, () =>
      summarized(
        awaitBudgetAdmission,
        `wait for ${request.cost} of ${run.memberId}'s budget`,
      )({
        memberId: run.memberId,
        request: { ...request, waiting: true },
        deadlineAt,
        initialIntervalMs: wait.initialIntervalSeconds * 1000,
        maxIntervalMs: wait.maxIntervalSeconds * 1000,
        checkFirst,
      }),
    );
    if (!waited) {
      cancelledMidCheck = true; // the cancelled attempt may have been admitted; the next check finds it
      checkFirst = true;
      continue;
    }
    const answer = waited.admitted ?? waited.lastRefusal ?? first;
    return {
      answer,
      checks: 1 + waited.checks,
      firstCheckedAt: first.checkedAt,
      mayHold: cancelledMidCheck || answer.admitted,
    };
  }
}

/** Undefined once cancelled, when a top-up asks for a re-check first. */
async function waitOrRecheck(
  run: BudgetJobRun,
  waitForAdmission: () => Promise<AwaitBudgetAdmissionResult>,
): Promise<AwaitBudgetAdmissionResult | undefined> {
  const scope = new CancellationScope();
  const waiting = scope.run(waitForAdmission);
  const signalled = condition(() => run.recheckAsked).then(() => undefined);
  const waited = await Promise.race([waiting, signalled]);
  if (waited) return waited;
  scope.cancel();
  return waiting.catch((err: unknown) => {
    if (isCancellation(err)) return undefined;
    throw err;
  });
}
