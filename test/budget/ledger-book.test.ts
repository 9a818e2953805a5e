// The budget ledger's book on its own, without a server: the admission rules, the order requests are
// decided in, release and reclaim, idempotent repeats, a job's chain of runs, and what continue-as-new
// carries. The budgetLedger workflow only wires these to its handlers and activities
// (test/workflows/budget-ledger.test.ts drives it through a server).
import {
  BudgetLedgerBook,
  MAX_BATCH,
  MAX_WAITING,
  RECENTLY_RELEASED,
  type BudgetCheck,
  type BudgetCheckResult,
  type CarriedLedgerState,
  type ReservationRequest,
} from '../../src/operations/budgetLedger/ledger-book';
import type { ReserveBudgetResult } from '@platform-ops/client';

const EMPTY: CarriedLedgerState = {
  reservations: [],
  waiting: [],
  recentlyReleased: [],
  totals: { admitted: 0, refused: 0, released: 0, reclaimed: 0 },
};
const CHECKED_AT = 1_700_000_000_000;

const newBook = (carried: CarriedLedgerState = EMPTY) => new BudgetLedgerBook<string>('member-1', carried);

const job = (name: string, cost: number, more: Partial<ReservationRequest> = {}): ReservationRequest => ({
  reservationId: `${name}@chain`,
  cost,
  holderWorkflowId: name,
  holderRunId: `${name}-run-1`,
  waiting: false,
  ...more,
});

/** A platform with `budget` left: each cost is covered on top of what is held and what the ones before it took. */
const platformWith =
  (budget: number) =>
  ({ held, requests }: BudgetCheck): BudgetCheckResult => {
    let taken = held;
    const enough = requests.map(({ cost }) => {
      const covered = taken + cost <= budget;
      if (covered) taken += cost;
      return covered;
    });
    return { enough, checkedAt: CHECKED_AT };
  };

/** Decides a batch as the workflow does: the book's own answers, then one check for the rest. */
function decide(book: BudgetLedgerBook<string>, requests: ReservationRequest[], budget: number) {
  const { answers, check } = book.answerFromBook(requests);
  const checked = check
    ? book.admitChecked(check, platformWith(budget)(check))
    : new Map<string, ReserveBudgetResult>();
  return { answers: new Map([...answers, ...checked]), check };
}

describe('admission', () => {
  it('admits a job the budget covers on top of what is held, and refuses one it does not', () => {
    const book = newBook();
    const first = decide(book, [job('a', 4_000)], 10_000).answers.get('a@chain');
    expect(first).toEqual({
      reservationId: 'a@chain',
      cost: 4_000,
      outstanding: 0,
      checkedCost: 4_000,
      admitted: true,
      alreadyHeld: false,
      checked: true,
      checkedAt: CHECKED_AT,
    });
    const { answers, check } = decide(book, [job('b', 7_000)], 10_000);
    // The platform is asked about b on top of the 4000 a holds.
    expect(check).toEqual({ held: 4_000, requests: [job('b', 7_000)] });
    expect(answers.get('b@chain')).toMatchObject({ admitted: false, outstanding: 4_000, checkedCost: 11_000 });
    expect(book.outstanding).toBe(4_000);
    expect(book.state().totals).toEqual({ admitted: 1, refused: 1, released: 0, reclaimed: 0 });
  });

  it('admits exactly the N jobs of a batch the budget covers, the first N in arrival order', () => {
    const book = newBook();
    const jobs = Array.from({ length: 10 }, (_, i) => job(`job-${i}`, 1_000));
    const { answers } = decide(book, jobs, 4_000);
    const admitted = jobs.filter((j) => answers.get(j.reservationId)!.admitted).map((j) => j.holderWorkflowId);
    expect(admitted).toEqual(['job-0', 'job-1', 'job-2', 'job-3']);
    expect(book.outstanding).toBe(4_000);
    // Each is reported on top of what the ones before it took.
    expect(jobs.map((j) => answers.get(j.reservationId)!.outstanding)).toEqual([
      0, 1_000, 2_000, 3_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000,
    ]);
  });

  it('lets a smaller job after a refused one through when it still fits', () => {
    const book = newBook();
    const { answers } = decide(book, [job('big', 8_000), job('small', 2_000)], 5_000);
    expect(answers.get('big@chain')).toMatchObject({ admitted: false });
    expect(answers.get('small@chain')).toMatchObject({ admitted: true, outstanding: 0 });
  });

  it('admits a free job without asking the platform', () => {
    const book = newBook();
    const { answers, check } = book.answerFromBook([job('free', 0)]);
    expect(check).toBeUndefined();
    expect(answers.get('free@chain')).toMatchObject({ admitted: true, checked: false, checkedAt: undefined });
    expect(book.holding).toBe(1);
  });

  it('reports each checked job against what was held when it was checked, though releases came in since', () => {
    const book = newBook();
    decide(book, [job('a', 3_000)], 10_000);
    const { check } = book.answerFromBook([job('b', 2_000)]);
    book.release('a@chain'); // while the platform was being asked
    const answers = book.admitChecked(check!, { enough: [true], checkedAt: CHECKED_AT });
    expect(answers.get('b@chain')).toMatchObject({ admitted: true, outstanding: 3_000, checkedCost: 5_000 });
    expect(book.outstanding).toBe(2_000);
  });
});

describe('the order requests are decided in', () => {
  it('takes queued requests oldest first, at most MAX_BATCH at a time', () => {
    const book = newBook();
    expect(book.hasQueued).toBe(false);
    const count = 2 * MAX_BATCH + 7;
    for (let i = 0; i < count; i++) book.queue(job(`job-${i}`, 100), `reply-${i}`);
    const batches: string[][] = [];
    while (book.hasQueued) batches.push(book.nextBatch().map((q) => q.reply));
    expect(batches.map((b) => b.length)).toEqual([MAX_BATCH, MAX_BATCH, 7]);
    expect(batches.flat()).toEqual(Array.from({ length: count }, (_, i) => `reply-${i}`));
  });

  it('tells waiting jobs to re-check oldest first, moves one refused again to the back, and forgets one admitted', () => {
    const book = newBook();
    const waiting = (name: string) => job(name, 5_000, { waiting: true });
    decide(book, [waiting('w1'), waiting('w2'), waiting('w3'), job('not-waiting', 5_000)], 1_000);
    expect(book.state().waiting).toEqual(['w1', 'w2', 'w3']);
    decide(book, [waiting('w1')], 1_000); // refused again: now the newest waiter
    decide(book, [job('w2', 500)], 1_000); // admitted: no longer waiting
    expect(book.state().waiting).toEqual(['w3', 'w1']);
    expect(book.takeWaiting()).toEqual(['w3', 'w1']);
    expect(book.state().waiting).toEqual([]);
  });

  it('drops the oldest waiting job past MAX_WAITING', () => {
    const book = newBook();
    const jobs = Array.from({ length: MAX_WAITING + 2 }, (_, i) => job(`w${i}`, 5_000, { waiting: true }));
    for (let i = 0; i < jobs.length; i += MAX_BATCH) decide(book, jobs.slice(i, i + MAX_BATCH), 1_000);
    const { waiting } = book.state();
    expect(waiting).toHaveLength(MAX_WAITING);
    expect(waiting[0]).toBe('w2');
    expect(waiting[waiting.length - 1]).toBe(`w${MAX_WAITING + 1}`);
  });
});

describe('repeated requests', () => {
  it('answers a repeated reservation with what is held, without asking the platform again', () => {
    const book = newBook();
    decide(book, [job('a', 4_000), job('b', 1_000)], 10_000);
    const { answers, check } = book.answerFromBook([job('a', 4_000)]);
    expect(check).toBeUndefined();
    expect(answers.get('a@chain')).toEqual({
      reservationId: 'a@chain',
      cost: 4_000,
      outstanding: 1_000,
      checkedCost: 5_000,
      admitted: true,
      alreadyHeld: true,
      checked: false,
      checkedAt: undefined,
    });
    expect(book.outstanding).toBe(5_000);
    expect(book.state().totals.admitted).toBe(2);
  });

  it('asks the platform once for a request sent twice in one batch', () => {
    const book = newBook();
    const { check } = book.answerFromBook([job('a', 4_000), job('b', 1_000), job('a', 4_000)]);
    expect(check!.requests.map((r) => r.reservationId)).toEqual(['a@chain', 'b@chain']);
  });

  it('answers a request sent twice in one batch once, with the first answer', () => {
    const book = newBook();
    const { answers } = book.answerFromBook([job('free', 0), job('free', 0)]);
    expect(answers.get('free@chain')).toMatchObject({ admitted: true, alreadyHeld: false });
    expect(book.state().totals.admitted).toBe(1);
  });

  it('releases once: a repeated release frees nothing', () => {
    const book = newBook();
    decide(book, [job('a', 4_000)], 10_000);
    expect(book.release('a@chain')).toEqual({ released: true, cost: 4_000 });
    expect(book.release('a@chain')).toEqual({ released: false });
    expect(book.release('never-held')).toEqual({ released: false });
    expect(book.state().totals).toMatchObject({ admitted: 1, released: 1 });
    expect(book.outstanding).toBe(0);
  });

  it('refuses a late duplicate of a released request without holding it again', () => {
    const book = newBook();
    decide(book, [job('a', 4_000)], 10_000);
    book.release('a@chain');
    const { answers, check } = book.answerFromBook([job('a', 4_000)]);
    expect(check).toBeUndefined();
    expect(answers.get('a@chain')).toMatchObject({ admitted: false, checked: false, outstanding: 0 });
    expect(book.holding).toBe(0);
  });

  it('forgets the oldest released ids past RECENTLY_RELEASED', () => {
    const book = newBook();
    for (let i = 0; i <= RECENTLY_RELEASED; i++) {
      decide(book, [job(`job-${i}`, 0)], 0);
      book.release(`job-${i}@chain`);
    }
    expect(book.carried().recentlyReleased).toHaveLength(RECENTLY_RELEASED);
    // The oldest is forgotten (it would be checked again), the newest still refused.
    expect(book.answerFromBook([job('job-0', 10)]).check).toBeDefined();
    expect(book.answerFromBook([job(`job-${RECENTLY_RELEASED}`, 10)]).answers.size).toBe(1);
  });
});

describe('reclaiming the reservations of jobs that ended', () => {
  it('drops the reservations whose holder ended, and only those still held', () => {
    const book = newBook();
    decide(book, [job('alive', 1_000), job('ended', 2_000), job('released', 3_000)], 10_000);
    const { held, holders } = book.holders();
    expect(holders).toEqual([{ workflowId: 'alive' }, { workflowId: 'ended' }, { workflowId: 'released' }]);
    book.release('released@chain'); // while the holders were being looked up
    const stale = book.reclaim(held, new Set(['ended', 'released']));
    expect(stale.map((r) => r.reservationId)).toEqual(['ended@chain']);
    expect(book.state()).toMatchObject({
      outstanding: 1_000,
      totals: { admitted: 3, refused: 0, released: 1, reclaimed: 1 },
    });
    expect(book.reclaim(held, new Set(['ended']))).toEqual([]);
  });
});

describe('continue-as-new', () => {
  it('carries the reservations, the waiting jobs, the released ids and the totals to the next run', () => {
    const book = newBook();
    decide(book, [job('a', 4_000), job('b', 3_000), job('w', 9_000, { waiting: true })], 8_000);
    decide(book, [job('c', 1_000)], 8_000);
    book.release('b@chain');
    // Through JSON, as the next run's input travels.
    const carried = JSON.parse(JSON.stringify(book.carried())) as CarriedLedgerState;
    const next = newBook(carried);
    expect(next.state()).toEqual(book.state());
    expect(next.carried()).toEqual(book.carried());
    // The next run keeps the rules: a repeat is held, a released request refused, budget still counted.
    expect(next.answerFromBook([job('a', 4_000)]).answers.get('a@chain')).toMatchObject({ alreadyHeld: true });
    expect(next.answerFromBook([job('b', 3_000)]).answers.get('b@chain')).toMatchObject({ admitted: false });
    expect(next.answerFromBook([job('d', 500)]).check).toEqual({ held: 5_000, requests: [job('d', 500)] });
  });

  it('starts empty with nothing carried', () => {
    const next = newBook(EMPTY);
    expect(next.state()).toEqual({
      memberId: 'member-1',
      outstanding: 0,
      reservations: [],
      waiting: [],
      totals: EMPTY.totals,
    });
  });
});

describe("a job's chain of runs", () => {
  it('a reservation follows its job to a reset or retried run, and a release is remembered by run', () => {
    const book = newBook();
    decide(book, [job('a', 4_000)], 10_000);
    const retried = job('a', 4_000, { holderRunId: 'a-run-2' });
    expect(book.answerFromBook([retried]).answers.get('a@chain')).toMatchObject({ alreadyHeld: true });
    expect(book.state().reservations[0].holderRunId).toBe('a-run-2');
    expect(book.holders().holders).toEqual([{ workflowId: 'a' }]);
    book.release('a@chain');
    expect(book.carried().recentlyReleased).toEqual(['a@chain a-run-2']);
    // The run that released is not admitted again; another run of the job (a retry) is checked again.
    expect(book.answerFromBook([retried]).answers.get('a@chain')).toMatchObject({ admitted: false });
    expect(book.answerFromBook([job('a', 4_000, { holderRunId: 'a-run-3' })]).check).toBeDefined();
  });
});
