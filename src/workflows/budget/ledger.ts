// budgetLedger: one long-lived workflow per member that admits budget-gated jobs in order. The
// platform's check-budget-by-cost only checks, so two jobs checked together could both pass and
// overspend; here every admission asks the platform to cover the job's cost plus every reservation
// still held (and what the jobs admitted just before it took), and holds the cost until the job
// releases it. Requests that arrive together (a worker sends all it has waiting in one
// reserveBudgetBatch Update, ./reserve-batch.ts) are decided in one check, in arrival order.
// Continue-as-new bounds the history.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { z } from 'zod';
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
  type ReleaseBudgetResult,
  type ReserveBudgetResult,
} from '../../api/schemas/budget';
import { parseInput } from '../../api/validate';
import type { Activities } from '../../activities';
import { describeZodError, formatIssues } from '../../platform/validation';
import { Patch } from '../patches';
import { trackStatus } from '../status';
import { forUpTo } from '../retry-policies';
import { LEDGER_VERSION, LEDGER_VERSION_MEMO, ledgerUpgradeDue, ledgerVersionOf } from './ledger-version';
import {
  ReserveBudgetBatch,
  reserveBudgetBatchUpdate,
  type ReservationFailure,
  type ReserveBudgetBatchResult,
} from './reserve-batch';

// A platform that stays down for more than a minute fails the admissions waiting on it (retryably,
// without ending the ledger), and the jobs' own reserve activities try again until their deadlines:
// the ledger itself must stay free to answer releases meanwhile.
const CHECK_OPTIONS = forUpTo(60_000, { attemptMs: 30_000 });
// Before Patch.ledgerLocalCheck: a regular activity. The workflow task ended while it ran, so Updates
// arriving meanwhile were taken in at once, but each batch cost a task to schedule the check, the
// check's own dispatch, and another task to answer: three trips through a server that a burst of jobs
// keeps busy.
const { checkMemberBudget } = proxyActivities<Activities>(CHECK_OPTIONS);
// Since: a local activity, so a batch is taken in, checked and answered in one workflow task. The
// check is a few reads (log2 of the batch, src/activities/budget/covered.ts); Updates that arrive
// meanwhile wait at the server for the next task, which is when they would have been decided anyway.
// Money still moves once: the ledger holds a reservation only from the recorded result, a check that
// is retried or re-run (its worker lost mid-task) only reads, and the Updates of a task that never
// completed are delivered again and meet the same idempotent reservationIds.
const { checkMemberBudget: checkMemberBudgetLocally } = proxyLocalActivities<Activities>(CHECK_OPTIONS);
// Reads of Temporal, every holderCheckSeconds: one that fails for 5 minutes is tried again at the next
// round (continue-as-new waits for it, so it must not run for ever).
const { findEndedHolders } = proxyActivities<Activities>(
  forUpTo(5 * 60_000, { attemptMs: 5 * 60_000, heartbeatMs: 60_000 }),
);

/** Released ids remembered, so a late duplicate of a released reservation is not admitted again. */
const RECENTLY_RELEASED = 500;
/** Waiting jobs remembered; the oldest is dropped past this (it still re-checks on its own backoff). */
const MAX_WAITING = 1_000;
/** Admission requests decided by one activity, at most. */
const MAX_BATCH = 50;

type ParsedReserveRequest = z.output<typeof ReserveBudgetRequest>;
interface PendingAdmission {
  request: ParsedReserveRequest;
  resolve(result: ReserveBudgetResult): void;
  reject(err: unknown): void;
}

/** A request's failure as plain data, for the batched Update's answer. */
function asReservationFailure(err: unknown): ReservationFailure {
  if (err instanceof ApplicationFailure) {
    return {
      type: err.type ?? undefined,
      message: err.message,
      nonRetryable: err.nonRetryable ?? false,
      details: err.details ? [...err.details] : undefined,
    };
  }
  return { message: err instanceof Error ? err.message : String(err), nonRetryable: false };
}

/** A released reservation as remembered since version 1: with the run that released it. */
const releasedKey = (r: { reservationId: string; holderRunId?: string }) => `${r.reservationId} ${r.holderRunId ?? ''}`;

/** A validator's refusal: the Update is rejected before it enters the history. */
function validated<S extends z.ZodType>(schema: S, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Invalid ${what}: ${formatIssues(describeZodError(parsed.error))}`);
}

export async function budgetLedger(rawInput: BudgetLedgerInput): Promise<BudgetLedgerState> {
  const input = parseInput(BudgetLedgerInput, rawInput, WorkflowType.budgetLedger);
  const { memberId } = input;
  // What this run does is its version's (./ledger-version.ts); an older run crosses over below.
  const version = ledgerVersionOf(workflowInfo().memo);
  /** Version 1: a reservation follows its job across a reset or a retried run (the same chain). */
  const followsChain = version >= 1;
  const reservations = new Map(input.reservations.map((r) => [r.reservationId, r]));
  const waiting = new Set(input.waiting);
  const recentlyReleased = [...input.recentlyReleased];
  const totals = { ...input.totals };
  const pending: PendingAdmission[] = [];
  let busy = 0; // admissions being decided, signals and holder checks in flight: continue-as-new waits for them

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

  /** An answer about `cost` under `reservationId`, with `others` held for other jobs. */
  const answer = (
    { reservationId, cost }: { reservationId: string; cost: number },
    others: number,
    admitted: boolean,
    { alreadyHeld = false, checkedAt }: { alreadyHeld?: boolean; checkedAt?: number } = {},
  ): ReserveBudgetResult => ({
    reservationId,
    cost,
    outstanding: others,
    checkedCost: cost + others,
    admitted,
    alreadyHeld,
    checked: checkedAt !== undefined,
    checkedAt,
  });

  const hold = (request: ParsedReserveRequest, others: number, checkedAt?: number): ReserveBudgetResult => {
    const { reservationId, cost, holderWorkflowId, holderRunId } = request;
    reservations.set(reservationId, { reservationId, cost, holderWorkflowId, holderRunId, admittedAt: checkedAt });
    waiting.delete(holderWorkflowId);
    totals.admitted++;
    return answer(request, others, true, { checkedAt });
  };

  const refuse = (request: ParsedReserveRequest, others: number, checkedAt: number): ReserveBudgetResult => {
    totals.refused++;
    if (request.waiting) {
      waiting.delete(request.holderWorkflowId); // re-added last: the oldest waiter is dropped first
      waiting.add(request.holderWorkflowId);
      if (waiting.size > MAX_WAITING) waiting.delete(waiting.values().next().value!);
    }
    return answer(request, others, false, { checkedAt });
  };

  /** Decides a batch in arrival order, each on top of what is held and what the ones before it took. */
  const decide = async (batch: PendingAdmission[]): Promise<void> => {
    const answers = new Map<string, ReserveBudgetResult | { failure: unknown }>();
    const paid: ParsedReserveRequest[] = [];
    for (const { request } of batch) {
      const { reservationId } = request;
      const held = reservations.get(reservationId);
      if (answers.has(reservationId)) continue; // the same request twice (a retried activity)
      if (held) {
        // A reset or retried run of the job asks again under the same id (its chain's): it holds now.
        if (followsChain && request.holderRunId && request.holderRunId !== held.holderRunId) {
          reservations.set(reservationId, { ...held, holderRunId: request.holderRunId });
        }
        answers.set(reservationId, answer(held, outstanding() - held.cost, true, { alreadyHeld: true }));
      } else if (recentlyReleased.includes(followsChain ? releasedKey(request) : reservationId)) {
        // Only a late duplicate of a request already answered and released gets here: hold nothing again.
        answers.set(reservationId, answer(request, outstanding(), false));
      } else if (request.cost === 0) {
        answers.set(reservationId, hold(request, outstanding())); // a free job needs no budget
      } else if (!paid.some((r) => r.reservationId === reservationId)) {
        paid.push(request);
      }
    }
    if (paid.length > 0) {
      const base = outstanding();
      try {
        const check = patched(Patch.ledgerLocalCheck) ? checkMemberBudgetLocally : checkMemberBudget;
        const { enough, checkedAt } = await check({ memberId, held: base, costs: paid.map((r) => r.cost) });
        // Each is reported against what was held when it was checked (releases may have come in since).
        let taken = base;
        paid.forEach((request, i) => {
          answers.set(
            request.reservationId,
            enough[i] ? hold(request, taken, checkedAt) : refuse(request, taken, checkedAt),
          );
          if (enough[i]) taken += request.cost;
        });
      } catch (err) {
        // The platform's own failure (an unknown member, say), with its type, fails these admissions only.
        const failure = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
        for (const request of paid) answers.set(request.reservationId, { failure });
      }
    }
    for (const p of batch) {
      const result = answers.get(p.request.reservationId)!;
      if ('failure' in result) p.reject(result.failure);
      else p.resolve(result);
    }
    changed();
  };

  /** Takes waiting requests in arrival order, a batch at a time. */
  const admitInOrder = async (): Promise<void> => {
    for (;;) {
      await condition(() => pending.length > 0);
      const batch = pending.splice(0, MAX_BATCH);
      busy++;
      try {
        await decide(batch);
      } finally {
        busy--;
      }
    }
  };
  void admitInOrder();

  const release = ({ reservationId }: ReleaseBudgetRequest): ReleaseBudgetResult => {
    const held = reservations.get(reservationId);
    if (!held) return { released: false };
    reservations.delete(reservationId);
    // Since version 1, by run: the run that released must not hold it again (a late duplicate of its
    // request), but another run of the job (a retry after a failure that released) needs it again.
    recentlyReleased.push(followsChain ? releasedKey(held) : reservationId);
    if (recentlyReleased.length > RECENTLY_RELEASED) recentlyReleased.shift();
    totals.released++;
    changed();
    notifyWaiting();
    return { released: true, cost: held.cost };
  };

  /** Queues a request to be decided in arrival order with the others. */
  const admit = (request: ParsedReserveRequest) =>
    new Promise<ReserveBudgetResult>((resolve, reject) => pending.push({ request, resolve, reject }));

  setHandler(budgetLedgerStateQuery, state);
  setHandler(reserveBudgetUpdate, (request) => admit(ReserveBudgetRequest.parse(request)), {
    validator: (request) => validated(ReserveBudgetRequest, request, 'reserveBudget request'),
  });
  // The same for every request one worker had waiting: queued in the order sent, each answered on its
  // own (a failed check fails only the requests it checked). A handler, not a command: histories
  // recorded before it existed replay unchanged.
  setHandler(
    reserveBudgetBatchUpdate,
    async (batch): Promise<ReserveBudgetBatchResult> => ({
      outcomes: await Promise.all(
        ReserveBudgetBatch.parse(batch).requests.map((request) =>
          admit(request).then(
            (answer) => ({ answer }),
            (err: unknown) => ({ failure: asReservationFailure(err) }),
          ),
        ),
      ),
    }),
    { validator: (batch) => validated(ReserveBudgetBatch, batch, 'reserveBudgetBatch request') },
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
            // Since version 1, the job's current run, whichever it is (a reset's, a retry's).
            holders: held.map((r) => ({
              workflowId: r.holderWorkflowId,
              runId: followsChain ? undefined : r.holderRunId,
            })),
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
    () =>
      workflowInfo().continueAsNewSuggested ||
      workflowInfo().historyLength >= input.continueAsNewAfterEvents ||
      ledgerUpgradeDue(version),
  );
  // Let admissions, releases, signals and checks in flight finish, so nothing is lost on the way over.
  await condition(() => allHandlersFinished() && busy === 0);
  // The next run is on the current version, whatever this one's was.
  return makeContinueAsNewFunc<typeof budgetLedger>({ memo: { [LEDGER_VERSION_MEMO]: LEDGER_VERSION } })({
    ...input,
    reservations: [...reservations.values()],
    waiting: [...waiting],
    recentlyReleased,
    totals,
  });
}
