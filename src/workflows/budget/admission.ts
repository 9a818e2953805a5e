// Admission through the member's ledger: one check, and for onInsufficient "wait", one long waiting
// activity that re-checks on a backoff until admitted or past the deadline. A recheckBudget signal (a
// top-up; the job's handler sets `recheck.asked`) cancels the waiting activity and starts another that
// checks at once. The job's history grows by a few events per signal, never per check.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { ParsedBudgetWaitOptions } from './contract';
import type { ReserveBudgetRequest, ReserveBudgetResult } from '../budgetLedger/contract';
import type { Activities, AwaitBudgetAdmissionResult } from '../../activities/budget/activities';
import type { BudgetJobProgressTracker } from './workflows';
import { isoTime } from '../../shared/time';
import { DEFAULT_DEADLINE_MS, TRANSIENT_RETRY, untilDeadline } from '../retry-policies';
import { summarized } from '../activity-summary';

// Idempotent by reservation id (the ledger answers a repeat with what it holds): retried through any
// outage of the ledger or the platform's check, until the admission deadline.
const reserving = () =>
  proxyActivities<Activities>(
    untilDeadline(workflowInfo().startTime.getTime() + DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 60_000 }),
  );

export interface LedgerAdmission {
  admitted: boolean;
  /** The deciding answer: the admission, or the last refusal. */
  answer: ReserveBudgetResult;
  checks: number;
  firstCheckedAt?: number;
  /** A check was cancelled mid-flight (by a re-check signal): it may have reserved, so release anyway. */
  mayHold: boolean;
}

/** A re-check asked for by a recheckBudget signal and not yet acted on. */
export interface RecheckRequest {
  asked: boolean;
}

export async function admitThroughLedger(opts: {
  memberId: string;
  request: ReserveBudgetRequest;
  wait?: ParsedBudgetWaitOptions;
  progress: BudgetJobProgressTracker;
  recheck: RecheckRequest;
}): Promise<LedgerAdmission> {
  const { memberId, request, wait, progress, recheck } = opts;

  progress.update({ status: 'CHECKING_BUDGET' });
  const first = await summarized(
    reserving().reserveMemberBudget,
    `reserve ${request.cost} of ${memberId}'s budget`,
  )({
    memberId,
    request: { ...request, waiting: wait !== undefined },
  });
  let checks = 1;
  const ledgerAdmission = (answer: ReserveBudgetResult, mayHold = false): LedgerAdmission => ({
    admitted: answer.admitted,
    answer,
    checks,
    firstCheckedAt: first.checkedAt,
    mayHold: mayHold || answer.admitted,
  });
  if (first.admitted || !wait) return ledgerAdmission(first);

  // Waiting, from the first refusal (the worker's clock: workflow code keeps none of its own).
  const deadlineAt = (first.checkedAt ?? 0) + wait.timeoutSeconds * 1000;
  progress.update({
    status: 'WAITING_FOR_BUDGET',
    checks,
    lastRefusal: { checkedCost: first.checkedCost, outstanding: first.outstanding, at: isoTime(first.checkedAt) },
    waitingSince: isoTime(first.checkedAt),
    waitDeadline: isoTime(deadlineAt),
  });
  const { awaitBudgetAdmission } = proxyActivities<Activities>({
    startToCloseTimeout: wait.timeoutSeconds * 1000 + 5 * 60_000,
    scheduleToCloseTimeout: wait.timeoutSeconds * 1000 + 5 * 60_000,
    heartbeatTimeout: '30s',
    retry: TRANSIENT_RETRY,
    // A cancelled check must have stopped before the next one starts.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

  let mayHold = false;
  let checkFirst = false;
  for (;;) {
    if (recheck.asked) checkFirst = true;
    recheck.asked = false;
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
    const signalled = condition(() => recheck.asked).then(() => undefined);
    let result: AwaitBudgetAdmissionResult | undefined = await Promise.race([waiting, signalled]);
    if (!result) {
      // A top-up: stop this wait and check again at once.
      scope.cancel();
      result = await waiting.catch((err: unknown) => {
        if (isCancellation(err)) return undefined;
        throw err;
      });
    }
    if (!result) {
      mayHold = true; // the cancelled attempt may have been admitted mid-check; the next check finds it
      checkFirst = true;
      continue;
    }
    checks += result.checks;
    // The waiting activity ends only when admitted or past the deadline.
    return ledgerAdmission(result.admitted ?? result.lastRefusal ?? first, mayHold);
  }
}
