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

// A platform down for over a minute fails the waiting admissions, retryably: the ledger stays free to answer releases.
// Local, so a batch is taken in, checked and answered in one workflow task.
const { checkMemberBudget } = proxyLocalActivities<Activities>(forUpTo(60_000, { attemptMs: 30_000 }));
// Continue-as-new waits for it, so it must not run for ever: one failing for 5 minutes is tried again next round.
const { findEndedHolders } = proxyActivities<Activities>(
  forUpTo(5 * 60_000, { attemptMs: 5 * 60_000, heartbeatMs: 60_000 }),
);

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

interface Reply {
  resolve(result: ReserveBudgetResult): void;
  reject(err: unknown): void;
}

export class BudgetLedgerRun {
  readonly memberId: string;
  readonly book: BudgetLedgerBook<Reply>;
  readonly status: StatusTracker<BudgetLedgerStatus>;
  // Work that must finish before continue-as-new besides handlers. Counted in place: the order of a run's commands
  // follows the promise chains below, so they keep their shape.
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

  changed(): void {
    const { book } = this;
    const total = book.outstanding;
    this.status.set(book.holding > 0 ? 'HOLDING' : 'IDLE', { outstanding: total, reservations: book.holding });
    if (total !== this.shownOutstanding) {
      upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: total }]);
      this.shownOutstanding = total;
    }
  }

  notifyWaiting(): void {
    for (const workflowId of this.book.takeWaiting()) {
      this.inFlight++;
      void getExternalWorkflowHandle(workflowId)
        .signal(recheckBudgetSignal)
        .catch(() => undefined)
        .finally(() => this.inFlight--);
    }
  }

  admit(request: ReservationRequest): Promise<ReserveBudgetResult> {
    return new Promise((resolve, reject) => this.book.queue(request, { resolve, reject }));
  }

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
        for (const r of stale)
          log.info('Reclaimed a reservation whose job ended without releasing it', { ...r, memberId });
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
