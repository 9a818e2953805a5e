// A budget-gated deploy: the member's ledger holds the minimum workers' cost for the stated hours from before the
// create (or update) until the next gated deploy or the remove. The ledger is the budgetGatedJob's; the endpoint's
// run is the reservation's holder, so a run that ends without releasing is reclaimed by the ledger's holder check.
import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { type EndpointReservation, FailureType } from '@platform-ops/client';
import type { MemberBudgetActivities } from '../../activities/member-budget';
import { summarized } from '../../workflows/activity-summary';
import { forUpTo, UNTIL_DONE } from '../../workflows/retry-policies';

const { reserveMemberBudget } = proxyActivities<MemberBudgetActivities>(forUpTo(10 * 60_000, { attemptMs: 60_000 }));
const { releaseMemberBudget } = proxyActivities<MemberBudgetActivities>(UNTIL_DONE);

export async function reserveForDeploy(
  budget: { memberId: string; hours: number },
  minWorkers: number,
  workerHourPrice: number | undefined,
  reservationId: string,
): Promise<EndpointReservation> {
  const { memberId, hours } = budget;
  if (workerHourPrice === undefined) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      nonRetryable: true,
      message: "budget: the product's price is not known, so the deploy cannot be budget-gated",
    });
  }
  // A scale-to-zero endpoint is gated on one worker: the first request brings one up.
  const cost = Math.max(1, minWorkers) * workerHourPrice * hours;
  const answer = await summarized(
    reserveMemberBudget,
    `reserve ${cost} of ${memberId}'s budget for ${hours} h`,
  )({ memberId, request: { reservationId, cost, holderWorkflowId: workflowInfo().workflowId, waiting: false } });
  if (!answer.admitted) {
    throw ApplicationFailure.create({
      type: FailureType.BudgetExceeded,
      nonRetryable: true,
      message:
        `budget: member ${memberId} cannot cover ${cost} (${Math.max(1, minWorkers)} workers for ${hours} h); ` +
        'nothing was sent to the platform',
      details: [{ admission: answer }],
    });
  }
  return { memberId, reservationId, cost };
}

export async function releaseReservation(reservation: EndpointReservation | undefined, reason: string): Promise<void> {
  if (!reservation) return;
  const { memberId, reservationId } = reservation;
  await summarized(releaseMemberBudget, `release ${reservationId}`)({ memberId, request: { reservationId, reason } });
}
