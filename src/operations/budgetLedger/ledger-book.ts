// Pure, with no clock of its own: the workflow passes the platform's answer and its time in, so the rules are tested
// without a server (test/budget/ledger-book.test.ts).
import type { z } from 'zod';
import type {
  BudgetLedgerState,
  LedgerReservation,
  LedgerTotals,
  ParsedBudgetLedgerInput,
  ReleaseBudgetResult,
  ReserveBudgetRequest,
  ReserveBudgetResult,
} from '@platform-ops/client';

// Released ids are remembered, so a late duplicate of a released reservation is not admitted again.
export const RECENTLY_RELEASED = 500;
// The oldest waiting job is dropped past this (it still re-checks on its own backoff).
export const MAX_WAITING = 1_000;
export const MAX_BATCH = 50;

export type ReservationRequest = z.output<typeof ReserveBudgetRequest>;

export type CarriedLedgerState = Pick<
  ParsedBudgetLedgerInput,
  'reservations' | 'waiting' | 'recentlyReleased' | 'totals'
>;

export interface QueuedAdmission<Reply> {
  request: ReservationRequest;
  reply: Reply;
}

export interface BudgetCheck {
  held: number;
  requests: ReservationRequest[];
}

export interface BudgetCheckResult {
  enough: boolean[];
  checkedAt: number;
}

const releasedKey = (r: { reservationId: string; holderRunId?: string }) => `${r.reservationId} ${r.holderRunId ?? ''}`;

function answer(
  { reservationId, cost }: { reservationId: string; cost: number },
  others: number,
  admitted: boolean,
  { alreadyHeld = false, checkedAt }: { alreadyHeld?: boolean; checkedAt?: number } = {},
): ReserveBudgetResult {
  return {
    reservationId,
    cost,
    outstanding: others,
    checkedCost: cost + others,
    admitted,
    alreadyHeld,
    checked: checkedAt !== undefined,
    checkedAt,
  };
}

export class BudgetLedgerBook<Reply = unknown> {
  private readonly reservations: Map<string, LedgerReservation>;
  private readonly waiting: Set<string>;
  private readonly recentlyReleased: string[];
  private readonly totals: LedgerTotals;
  private readonly queued: QueuedAdmission<Reply>[] = [];

  constructor(
    readonly memberId: string,
    carried: CarriedLedgerState,
  ) {
    this.reservations = new Map(carried.reservations.map((r) => [r.reservationId, r]));
    this.waiting = new Set(carried.waiting);
    this.recentlyReleased = [...carried.recentlyReleased];
    this.totals = { ...carried.totals };
  }

  get outstanding(): number {
    return [...this.reservations.values()].reduce((sum, r) => sum + r.cost, 0);
  }

  get holding(): number {
    return this.reservations.size;
  }

  carried(): CarriedLedgerState {
    return {
      reservations: [...this.reservations.values()],
      waiting: [...this.waiting],
      recentlyReleased: [...this.recentlyReleased],
      totals: { ...this.totals },
    };
  }

  state(): BudgetLedgerState {
    const { reservations, waiting, totals } = this.carried();
    return { memberId: this.memberId, outstanding: this.outstanding, reservations, waiting, totals };
  }

  queue(request: ReservationRequest, reply: Reply): void {
    this.queued.push({ request, reply });
  }

  get hasQueued(): boolean {
    return this.queued.length > 0;
  }

  nextBatch(): QueuedAdmission<Reply>[] {
    return this.queued.splice(0, MAX_BATCH);
  }

  /** Answers what the book can alone (held, released, free); the rest, once each, go to the platform. */
  answerFromBook(requests: readonly ReservationRequest[]): {
    answers: Map<string, ReserveBudgetResult>;
    check?: BudgetCheck;
  } {
    const answers = new Map<string, ReserveBudgetResult>();
    const paid: ReservationRequest[] = [];
    for (const request of requests) {
      const { reservationId } = request;
      const held = this.reservations.get(reservationId);
      if (answers.has(reservationId)) continue; // the same request twice (a retried activity)
      if (held) {
        // A reset or retried run of the job asks again under the same id (its chain's): it holds now.
        if (request.holderRunId && request.holderRunId !== held.holderRunId) {
          this.reservations.set(reservationId, { ...held, holderRunId: request.holderRunId });
        }
        answers.set(reservationId, answer(held, this.outstanding - held.cost, true, { alreadyHeld: true }));
      } else if (this.recentlyReleased.includes(releasedKey(request))) {
        // Only a late duplicate of a request already answered and released gets here: hold nothing again.
        answers.set(reservationId, answer(request, this.outstanding, false));
      } else if (request.cost === 0) {
        answers.set(reservationId, this.hold(request, this.outstanding)); // a free job needs no budget
      } else if (!paid.some((r) => r.reservationId === reservationId)) {
        paid.push(request);
      }
    }
    return { answers, check: paid.length > 0 ? { held: this.outstanding, requests: paid } : undefined };
  }

  admitChecked(check: BudgetCheck, { enough, checkedAt }: BudgetCheckResult): Map<string, ReserveBudgetResult> {
    const answers = new Map<string, ReserveBudgetResult>();
    let taken = check.held;
    check.requests.forEach((request, i) => {
      answers.set(
        request.reservationId,
        enough[i] ? this.hold(request, taken, checkedAt) : this.refuse(request, taken, checkedAt),
      );
      if (enough[i]) taken += request.cost;
    });
    return answers;
  }

  release(reservationId: string): ReleaseBudgetResult {
    const held = this.reservations.get(reservationId);
    if (!held) return { released: false };
    this.reservations.delete(reservationId);
    // By run: the run that released must not hold it again (a late duplicate of its request), but
    // another run of the job (a retry after a failure that released) needs it again.
    this.recentlyReleased.push(releasedKey(held));
    if (this.recentlyReleased.length > RECENTLY_RELEASED) this.recentlyReleased.shift();
    this.totals.released++;
    return { released: true, cost: held.cost };
  }

  takeWaiting(): string[] {
    const told = [...this.waiting];
    this.waiting.clear();
    return told;
  }

  holders(): { held: LedgerReservation[]; holders: { workflowId: string }[] } {
    const held = [...this.reservations.values()];
    return { held, holders: held.map((r) => ({ workflowId: r.holderWorkflowId })) };
  }

  reclaim(held: readonly LedgerReservation[], endedWorkflowIds: ReadonlySet<string>): LedgerReservation[] {
    const stale = held.filter(
      (r) => endedWorkflowIds.has(r.holderWorkflowId) && this.reservations.has(r.reservationId),
    );
    for (const r of stale) {
      this.reservations.delete(r.reservationId);
      this.totals.reclaimed++;
    }
    return stale;
  }

  private hold(request: ReservationRequest, others: number, checkedAt?: number): ReserveBudgetResult {
    const { reservationId, cost, holderWorkflowId, holderRunId } = request;
    this.reservations.set(reservationId, { reservationId, cost, holderWorkflowId, holderRunId, admittedAt: checkedAt });
    this.waiting.delete(holderWorkflowId);
    this.totals.admitted++;
    return answer(request, others, true, { checkedAt });
  }

  private refuse(request: ReservationRequest, others: number, checkedAt: number): ReserveBudgetResult {
    this.totals.refused++;
    if (request.waiting) {
      this.waiting.delete(request.holderWorkflowId); // re-added last: the oldest waiter is dropped first
      this.waiting.add(request.holderWorkflowId);
      if (this.waiting.size > MAX_WAITING) this.waiting.delete(this.waiting.values().next().value!);
    }
    return answer(request, others, false, { checkedAt });
  }
}
