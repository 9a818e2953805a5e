// One run of a member's ledger: the book (./ledger-book.ts) and what the run does around it: shows what it
// holds, decides queued admissions in batches with the platform's check, tells waiting jobs to re-check,
// and reclaims reservations whose job ended without releasing them.
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  recheckBudgetSignal,
  ReserveBudgetBatch,
  SearchAttributes,
  WorkflowType,
  type BudgetLedgerStatus,
  type ParsedBudgetLedgerInput,
  type ReleaseBudgetRequest,
  type ReleaseBudgetResult,
  type ReservationFailure,
  type ReserveBudgetBatchResult,
  type ReserveBudgetResult,
} from '@platform-ops/client';
import type { Activities } from './activities';
import { BudgetLedgerBook, type QueuedAdmission, type ReservationRequest } from './ledger-book';
import { summarized } from '../../workflows/activity-summary';
import { forUpTo } from '../../workflows/retry-policies';
import { trackStatus, type StatusTracker } from '../../workflows/status';

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

/** What answers the sender of a queued request: its Update handler's promise. */
interface Reply {
  resolve(result: ReserveBudgetResult): void;
  reject(err: unknown): void;
}

export class BudgetLedgerRun {
  readonly memberId: string;
  readonly book: BudgetLedgerBook<Reply>;
  readonly status: StatusTracker<BudgetLedgerStatus>;
  /**
   * Work that must finish before continue-as-new besides handlers (batches, signals, holder checks), counted in
   * place: the order of a run's commands follows the promise chains below, so they keep their shape.
   */
  inFlight = 0;
  private shownOutstanding = -1;

  constructor(private readonly input: ParsedBudgetLedgerInput) {
    const { memberId } = input;
    this.memberId = memberId;
    const book = new BudgetLedgerBook<Reply>(memberId, input);
    this.book = book;
    this.status = trackStatus<BudgetLedgerStatus>(WorkflowType.budgetLedger, book.holding > 0 ? 'HOLDING' : 'IDLE', {
      memberId,
    });
    this.changed();
  }

  /** Shows what the book holds: the status, and the cost-estimate attribute when the sum changed. */
  changed(): void {
    const { book } = this;
    const total = book.outstanding;
    this.status.set(book.holding > 0 ? 'HOLDING' : 'IDLE', { outstanding: total, reservations: book.holding });
    if (total !== this.shownOutstanding) {
      upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: total }]);
      this.shownOutstanding = total;
    }
  }

  /** Tells every waiting job to re-check now; each re-registers if it is refused again. */
  notifyWaiting(): void {
    for (const workflowId of this.book.takeWaiting()) {
      this.inFlight++;
      // A job that has ended cannot be told, and needs not be.
      void getExternalWorkflowHandle(workflowId)
        .signal(recheckBudgetSignal)
        .catch(() => undefined)
        .finally(() => this.inFlight--);
    }
  }

  admit(request: ReservationRequest): Promise<ReserveBudgetResult> {
    return new Promise((resolve, reject) => this.book.queue(request, { resolve, reject }));
  }

  /** Each request queued in the order sent and answered on its own (a failed check fails only those it checked). */
  async admitBatch(batch: ReserveBudgetBatch): Promise<ReserveBudgetBatchResult> {
    return {
      outcomes: await Promise.all(
        ReserveBudgetBatch.parse(batch).requests.map((request) =>
          this.admit(request).then(
            (answer) => ({ answer }),
            (err: unknown) => ({ failure: asReservationFailure(err) }),
          ),
        ),
      ),
    };
  }

  /** Decides queued requests, a batch at a time, in arrival order, for the whole run. */
  async admitInOrder(): Promise<void> {
    for (;;) {
      await condition(() => this.book.hasQueued);
      const batch = this.book.nextBatch();
      this.inFlight++;
      try {
        await this.decide(batch);
      } finally {
        this.inFlight--;
      }
    }
  }

  /** Decides a batch: what the book answers alone, then the rest in one check by the platform. */
  private async decide(batch: QueuedAdmission<Reply>[]): Promise<void> {
    const { book, memberId } = this;
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
    this.changed();
  }

  release({ reservationId }: ReleaseBudgetRequest): ReleaseBudgetResult {
    const result = this.book.release(reservationId);
    if (result.released) {
      this.changed();
      this.notifyWaiting();
    }
    return result;
  }

  /** A job that ended without releasing (terminated, say) must not hold budget for ever. */
  async reclaimStale(): Promise<void> {
    const { book, memberId } = this;
    for (;;) {
      await condition(() => book.holding > 0);
      await sleep(this.input.holderCheckSeconds * 1000);
      const { held, holders } = book.holders();
      if (held.length === 0) continue;
      this.inFlight++;
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
          this.changed();
          this.notifyWaiting();
        }
      } catch (err) {
        log.info('Could not check the holders of reservations; trying again later', { error: String(err) });
      } finally {
        this.inFlight--;
      }
    }
  }
}
