// The two pieces that let one ledger decide a burst quickly, on their own (no server): the lanes that
// carry a worker's reservation requests in few Updates, and the check that answers a batch of costs
// with a handful of questions to the platform instead of one per cost.
import { coveredInOrder } from '../../src/operations/budgetLedger/activities';
import { BatchLanes } from '../../src/shared/lanes';

/** What asking the platform once per cost, in order, answers (the ledger's first design). */
function askedOneByOne(remaining: number, held: number, costs: number[]): boolean[] {
  let taken = held;
  return costs.map((cost) => {
    const enough = taken + cost <= remaining;
    if (enough) taken += cost;
    return enough;
  });
}

/** A platform whose member has `remaining` left, counting the questions. */
function platform(remaining: number) {
  const asked: number[] = [];
  const covers = (amount: number) => {
    asked.push(amount);
    return Promise.resolve(amount <= remaining);
  };
  return { asked, covers };
}

describe('coveredInOrder', () => {
  it('answers a burst of equal costs as one-by-one checks would, in a handful of questions', async () => {
    const costs = Array.from({ length: 50 }, () => 5_600);
    const p = platform(40 * 5_600 + 2_800);
    const enough = await coveredInOrder(0, costs, p.covers);
    expect(enough).toEqual(askedOneByOne(40 * 5_600 + 2_800, 0, costs));
    expect(enough.filter(Boolean)).toHaveLength(40);
    expect(p.asked.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(50)));
  });

  it('asks once when the budget covers the whole batch', async () => {
    const p = platform(1_000_000);
    expect(await coveredInOrder(10_000, [100, 200, 300], p.covers)).toEqual([true, true, true]);
    expect(p.asked).toEqual([10_600]);
  });

  it('still admits a cheaper job after a dearer one was refused, on top of what is held', async () => {
    const p = platform(10_000);
    expect(await coveredInOrder(4_000, [3_000, 5_000, 2_000, 1_500], p.covers)).toEqual([true, false, true, false]);
  });

  it('gives the answers of one-by-one checks for any batch', async () => {
    // A fixed pseudo-random sequence: the same cases on every run.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 48_271) % 2_147_483_647) % n;
    for (let round = 0; round < 300; round++) {
      const costs = Array.from({ length: 1 + next(60) }, () => next(4) * 1_000 + next(3) * 250);
      const remaining = next(60_000);
      const held = next(10_000);
      const p = platform(remaining);
      expect(await coveredInOrder(held, costs, p.covers)).toEqual(askedOneByOne(remaining, held, costs));
      expect(p.asked.length).toBeLessThanOrEqual(costs.length + 1 + Math.ceil(Math.log2(costs.length + 1)));
    }
  });
});

describe('BatchLanes', () => {
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it('sends one item alone when a lane is free, and what waits meanwhile together, in order', async () => {
    const sent: number[][] = [];
    const releases: (() => void)[] = [];
    const lanes = new BatchLanes<number, string>(1, 3, (items) => {
      sent.push(items);
      return new Promise((resolve) => releases.push(() => resolve(items.map((i) => `answer ${i}`))));
    });
    const answers = [1, 2, 3, 4, 5].map((i) => lanes.run(i));
    await flush();
    expect(sent).toEqual([[1]]);
    expect(lanes.queued).toBe(4);
    releases.shift()!();
    await flush();
    expect(sent).toEqual([[1], [2, 3, 4]]); // at most 3 a batch
    releases.shift()!();
    await flush();
    releases.shift()!();
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5].map((i) => `answer ${i}`));
    expect(sent).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('fails only the items of the batch whose send failed', async () => {
    let calls = 0;
    const lanes = new BatchLanes<string, string>(2, 10, (items) =>
      ++calls === 1 ? Promise.reject(new Error('server busy')) : Promise.resolve(items),
    );
    const first = lanes.run('a');
    const second = lanes.run('b');
    await expect(first).rejects.toThrow('server busy');
    await expect(second).resolves.toBe('b');
  });
});
