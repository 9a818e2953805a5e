// budgetLedger: one long-lived workflow per member that admits budget-gated jobs in arrival order
// (src/operations/budgetGatedJob/README.md#the-ledger). The book (src/operations/budgetLedger/ledger-book.ts) decides; this is the wiring:
// handlers, the platform's check and holder lookups as activities, signals to waiting jobs, continue-as-new.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import type { z } from 'zod';
import {
  BudgetLedgerInput,
  type BudgetLedgerState,
  budgetLedgerStateQuery,
  type BudgetLedgerStatus,
  formatIssues,
  parseInput,
  parseOrThrow,
  recheckBudgetSignal,
  ReleaseBudgetRequest,
  type ReleaseBudgetResult,
  releaseBudgetUpdate,
  type ReservationFailure,
  ReserveBudgetBatch,
  type ReserveBudgetBatchResult,
  reserveBudgetBatchUpdate,
  ReserveBudgetRequest,
  type ReserveBudgetResult,
  reserveBudgetUpdate,
  SearchAttributes,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities } from './activities';
import { BudgetLedgerBook, type QueuedAdmission, type ReservationRequest } from './ledger-book';
import { summarized } from '../../workflows/activity-summary';
import { forUpTo } from '../../workflows/retry-policies';
import { trackStatus } from '../../workflows/status';

// A platform down for over a minute fails the admissions waiting on it, retryably: the ledger stays free to answer
// releases, and the jobs' reserve activities try again. Local, so a batch is taken in, checked and answered in one
// workflow task. Money still moves once: a reservation is held only from the recorded result, a re-run check only
// reads, and the Updates of a task that never completes come again with the same reservationIds.
const { checkMemberBudget } = proxyLocalActivities<Activities>(forUpTo(60_000, { attemptMs: 30_000 }));
// Reads of Temporal, every holderCheckSeconds: one that fails for 5 minutes is tried again at the next
// round (continue-as-new waits for it, so it must not run for ever).
const { findEndedHolders } = proxyActivities<Activities>(
  forUpTo(5 * 60_000, { attemptMs: 5 * 60_000, heartbeatMs: 60_000 }),
);

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

/** A validator's refusal: the Update is rejected before it enters the history. */
function validated<S extends z.ZodType>(schema: S, value: unknown, what: string): void {
  parseOrThrow(schema, value, (issues) => new Error(`Invalid ${what}: ${formatIssues(issues)}`));
}

/** What answers the sender of a queued request: its Update handler's promise. */
interface Reply {
  resolve(result: ReserveBudgetResult): void;
  reject(err: unknown): void;
}

export async function budgetLedger(rawInput: BudgetLedgerInput): Promise<BudgetLedgerState> {
  const input = parseInput(BudgetLedgerInput, rawInput, WorkflowType.budgetLedger);
  const { memberId } = input;
  const book = new BudgetLedgerBook<Reply>(memberId, input);
  // Work that must finish before continue-as-new besides handlers (batches, signals, holder checks), counted in
  // place: the order of a run's commands follows the promise chains below, so they keep their shape.
  let inFlight = 0;
  const status = trackStatus<BudgetLedgerStatus>(WorkflowType.budgetLedger, book.holding > 0 ? 'HOLDING' : 'IDLE', {
    memberId,
  });
  let shownOutstanding = -1;
  changed();

  // Started before the handlers: an Update delivered with the run's start is queued by its handler the
  // moment it is registered, and the order of the commands that follow depends on it.
  void admitInOrder();

  setHandler(statusQuery, () => status.current);
  setHandler(budgetLedgerStateQuery, () => book.state());
  setHandler(reserveBudgetUpdate, (request) => admit(ReserveBudgetRequest.parse(request)), {
    validator: (request) => validated(ReserveBudgetRequest, request, 'reserveBudget request'),
  });
  // Each request queued in the order sent and answered on its own (a failed check fails only those it checked).
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
  setHandler(recheckBudgetSignal, notifyWaiting);

  void reclaimStale();

  await condition(
    () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.continueAsNewAfterEvents,
  );
  // Let admissions, releases, signals and checks in flight finish, so nothing is lost on the way over.
  await condition(() => allHandlersFinished() && inFlight === 0);
  return makeContinueAsNewFunc<typeof budgetLedger>()({ ...input, ...book.carried() });

  /** Shows what the book holds: the status, and the cost-estimate attribute when the sum changed. */
  function changed(): void {
    const total = book.outstanding;
    status.set(book.holding > 0 ? 'HOLDING' : 'IDLE', { outstanding: total, reservations: book.holding });
    if (total !== shownOutstanding) {
      upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: total }]);
      shownOutstanding = total;
    }
  }

  /** Tells every waiting job to re-check now; each re-registers if it is refused again. */
  function notifyWaiting(): void {
    for (const workflowId of book.takeWaiting()) {
      inFlight++;
      // A job that has ended cannot be told, and needs not be.
      void getExternalWorkflowHandle(workflowId)
        .signal(recheckBudgetSignal)
        .catch(() => undefined)
        .finally(() => inFlight--);
    }
  }

  function admit(request: ReservationRequest): Promise<ReserveBudgetResult> {
    return new Promise((resolve, reject) => book.queue(request, { resolve, reject }));
  }

  async function admitInOrder(): Promise<void> {
    for (;;) {
      await condition(() => book.hasQueued);
      const batch = book.nextBatch();
      inFlight++;
      try {
        await decide(batch);
      } finally {
        inFlight--;
      }
    }
  }

  /** Decides a batch: what the book answers alone, then the rest in one check by the platform. */
  async function decide(batch: QueuedAdmission<Reply>[]): Promise<void> {
    const { answers, check } = book.answerFromBook(batch.map((q) => q.request));
    const results = new Map<string, ReserveBudgetResult | { failure: unknown }>(answers);
    if (check) {
      try {
        const checked = await summarized(
          checkMemberBudget,
          `check the budget of ${memberId} for ${check.requests.length} jobs`,
        )({ memberId, held: check.held, costs: check.requests.map((r) => r.cost) });
        for (const [reservationId, result] of book.admitChecked(check, checked)) results.set(reservationId, result);
      } catch (err) {
        // The platform's own failure (an unknown member, say), with its type, fails these admissions only.
        const failure = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : err;
        for (const request of check.requests) results.set(request.reservationId, { failure });
      }
    }
    for (const { request, reply } of batch) {
      const result = results.get(request.reservationId)!;
      if ('failure' in result) reply.reject(result.failure);
      else reply.resolve(result);
    }
    changed();
  }

  function release({ reservationId }: ReleaseBudgetRequest): ReleaseBudgetResult {
    const result = book.release(reservationId);
    if (result.released) {
      changed();
      notifyWaiting();
    }
    return result;
  }

  // A job that ended without releasing (terminated, say) must not hold budget for ever.
  async function reclaimStale(): Promise<void> {
    for (;;) {
      await condition(() => book.holding > 0);
      await sleep(input.holderCheckSeconds * 1000);
      const { held, holders } = book.holders();
      if (held.length === 0) continue;
      inFlight++;
      try {
        const stale = book.reclaim(
          held,
          new Set(await summarized(findEndedHolders, `find which of ${holders.length} holders ended`)({ holders })),
        );
        for (const r of stale) {
          // A terminated or reset job: the ledger heals itself, and nobody has to act.
          log.info('Reclaimed a reservation whose job ended without releasing it', { ...r, memberId });
        }
        if (stale.length > 0) {
          changed();
          notifyWaiting();
        }
      } catch (err) {
        log.info('Could not check the holders of reservations; trying again later', { error: String(err) });
      } finally {
        inFlight--;
      }
    }
  }
}

// Versioning (docs/versioning.md): a run lives long, so it moves to the current build; changes use patched().
setVersioningBehavior('AUTO_UPGRADE', budgetLedger);
