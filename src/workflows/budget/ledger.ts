// budgetLedger: one long-lived workflow per member that admits budget-gated jobs one at a time. The
// platform's check-budget-by-cost only checks, so two jobs checked together could both pass and
// overspend; here every admission asks the platform to cover the job's cost plus every reservation
// still held, and holds the cost until the job releases it. Continue-as-new bounds the history.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  budgetLedgerStateQuery,
  recheckBudgetSignal,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
  SearchAttributes,
  WorkflowType,
} from '../../api/names';
import {
  BudgetLedgerInput,
  ReleaseBudgetRequest,
  ReserveBudgetRequest,
  type BudgetLedgerState,
  type LedgerReservation,
  type ReleaseBudgetResult,
  type ReserveBudgetResult,
} from '../../api/schemas/budget';
import { parseInput } from '../../api/validate';
import type { Activities } from '../../activities';
import { describeZodError, formatIssues } from '../../platform/validation';
import type { z } from 'zod';
import { Mutex } from '../mutex';
import { trackStatus } from '../status';

// Short and local: admissions wait on it one after another. A platform that stays down fails the
// admission (retryably), and the job's own activity tries again.
const { checkMemberBudget } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
});
const { findEndedHolders } = proxyActivities<Activities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 5 },
});

/** Released ids remembered, so a late duplicate of a released reservation is not admitted again. */
const RECENTLY_RELEASED = 500;
/** Waiting jobs remembered; the oldest is dropped past this (it still re-checks on its own backoff). */
const MAX_WAITING = 1_000;

/** A validator's refusal: the Update is rejected before it enters the history. */
function validated<S extends z.ZodType>(schema: S, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Invalid ${what}: ${formatIssues(describeZodError(parsed.error))}`);
}

export async function budgetLedger(rawInput: BudgetLedgerInput): Promise<BudgetLedgerState> {
  const input = parseInput(BudgetLedgerInput, rawInput, WorkflowType.budgetLedger);
  const { memberId } = input;
  const reservations = new Map(input.reservations.map((r) => [r.reservationId, r]));
  const waiting = new Set(input.waiting);
  const recentlyReleased = [...input.recentlyReleased];
  const totals = { ...input.totals };
  const admissions = new Mutex();
  let busy = 0; // signals and holder checks in flight: continue-as-new waits for them

  const outstanding = () => [...reservations.values()].reduce((sum, r) => sum + r.cost, 0);
  const status = trackStatus(WorkflowType.budgetLedger, reservations.size > 0 ? 'HOLDING' : 'IDLE', { memberId });
  let shownOutstanding = -1;
  const changed = () => {
    const total = outstanding();
    status.set(reservations.size > 0 ? 'HOLDING' : 'IDLE', { outstanding: total, reservations: reservations.size });
    if (total !== shownOutstanding) {
      upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: total }]);
      shownOutstanding = total;
    }
  };
  changed();

  const state = (): BudgetLedgerState => ({
    memberId,
    outstanding: outstanding(),
    reservations: [...reservations.values()],
    waiting: [...waiting],
    totals: { ...totals },
  });

  /** Tells every waiting job to re-check now; each re-registers if it is refused again. */
  const notifyWaiting = () => {
    const told = [...waiting];
    waiting.clear();
    for (const workflowId of told) {
      busy++;
      // A job that has ended cannot be told, and needs not be.
      void getExternalWorkflowHandle(workflowId)
        .signal(recheckBudgetSignal)
        .catch(() => undefined)
        .finally(() => busy--);
    }
  };

  const admit = async (request: z.output<typeof ReserveBudgetRequest>): Promise<ReserveBudgetResult> => {
    const { reservationId, cost } = request;
    const held = reservations.get(reservationId);
    const others = outstanding() - (held?.cost ?? 0);
    const answer = { reservationId, outstanding: others, checkedCost: cost + others };
    if (held) return { ...answer, cost: held.cost, admitted: true, alreadyHeld: true, checked: false };
    if (recentlyReleased.includes(reservationId)) {
      // Only a late duplicate of a request already answered and released gets here: hold nothing again.
      return { ...answer, cost, admitted: false, alreadyHeld: false, checked: false };
    }
    let checkedAt: number | undefined;
    let enough = true; // a free job needs no budget
    if (cost > 0) {
      try {
        ({ enough, checkedAt } = await checkMemberBudget({ memberId, cost: cost + others }));
      } catch (err) {
        // The platform's own failure (an unknown member, say), with its type, fails this admission only.
        throw err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
      }
    }
    if (!enough) {
      totals.refused++;
      if (request.waiting) {
        waiting.delete(request.holderWorkflowId); // re-added last: the oldest waiter is dropped first
        waiting.add(request.holderWorkflowId);
        if (waiting.size > MAX_WAITING) waiting.delete(waiting.values().next().value!);
      }
      return { ...answer, cost, admitted: false, alreadyHeld: false, checked: cost > 0, checkedAt };
    }
    const reservation: LedgerReservation = {
      reservationId,
      cost,
      holderWorkflowId: request.holderWorkflowId,
      holderRunId: request.holderRunId,
      admittedAt: checkedAt,
    };
    reservations.set(reservationId, reservation);
    waiting.delete(request.holderWorkflowId);
    totals.admitted++;
    changed();
    return { ...answer, cost, admitted: true, alreadyHeld: false, checked: cost > 0, checkedAt };
  };

  const release = ({ reservationId }: ReleaseBudgetRequest): ReleaseBudgetResult => {
    const held = reservations.get(reservationId);
    if (!held) return { released: false };
    reservations.delete(reservationId);
    recentlyReleased.push(reservationId);
    if (recentlyReleased.length > RECENTLY_RELEASED) recentlyReleased.shift();
    totals.released++;
    changed();
    notifyWaiting();
    return { released: true, cost: held.cost };
  };

  setHandler(budgetLedgerStateQuery, state);
  setHandler(
    reserveBudgetUpdate,
    // One admission at a time: each sees every reservation the ones before it made.
    (request) => admissions.run(() => admit(ReserveBudgetRequest.parse(request))),
    { validator: (request) => validated(ReserveBudgetRequest, request, 'reserveBudget request') },
  );
  setHandler(releaseBudgetUpdate, (request) => Promise.resolve(release(ReleaseBudgetRequest.parse(request))), {
    validator: (request) => validated(ReleaseBudgetRequest, request, 'releaseBudget request'),
  });
  // An operator's word that the budget was topped up: every waiting job re-checks at once.
  setHandler(recheckBudgetSignal, notifyWaiting);

  // A job that ended without releasing (terminated, say) must not hold budget for ever: now and then,
  // reservations whose holder has ended are reclaimed.
  const reclaimStale = async (): Promise<void> => {
    for (;;) {
      await condition(() => reservations.size > 0);
      await sleep(input.holderCheckSeconds * 1000);
      const held = [...reservations.values()];
      if (held.length === 0) continue;
      busy++;
      try {
        const ended = new Set(
          await findEndedHolders({
            holders: held.map((r) => ({ workflowId: r.holderWorkflowId, runId: r.holderRunId })),
          }),
        );
        const stale = held.filter((r) => ended.has(r.holderWorkflowId) && reservations.has(r.reservationId));
        for (const r of stale) {
          reservations.delete(r.reservationId);
          totals.reclaimed++;
          log.warn('Reclaimed a reservation whose job ended without releasing it', { ...r, memberId });
        }
        if (stale.length > 0) {
          changed();
          notifyWaiting();
        }
      } catch (err) {
        log.warn('Could not check the holders of reservations; trying again later', { error: String(err) });
      } finally {
        busy--;
      }
    }
  };
  void reclaimStale();

  await condition(
    () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.continueAsNewAfterEvents,
  );
  // Let admissions, releases, signals and checks in flight finish, so nothing is lost on the way over.
  await condition(() => allHandlersFinished() && busy === 0);
  return continueAsNew<typeof budgetLedger>({
    ...input,
    reservations: [...reservations.values()],
    waiting: [...waiting],
    recentlyReleased,
    totals,
  });
}
