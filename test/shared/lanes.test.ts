// The one bounded-concurrency pool: mapBounded keeps the order of its results and at most `limit`
// calls in flight, and starts work in exactly the order the lane helper it replaced did, which
// workflow code relies on (the order of its activity calls is recorded in histories).
import { mapBounded } from '../../src/shared/lanes';

const flush = () => new Promise((resolve) => setImmediate(resolve));

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
const deferred = (): Deferred => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

/** A plain bounded map: mapBounded must start and end calls in the same steps (a replayed workflow depends on it). */
async function previousMapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/** A seeded shuffle, so a failure names the case that found it. */
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Runs `map` over 12 items, ending the calls in flight in a seeded order, several in the same tick
 * (as activity results arriving in one workflow activation), and returns what happened in order:
 * each call's start and, some steps after its await, its end (as workflow code issues commands).
 */
async function steps(map: typeof mapBounded, limit: number, seed: number): Promise<string[]> {
  const started: string[] = [];
  const pending = new Map<number, Deferred>();
  const items = Array.from({ length: 12 }, (_, i) => i);
  const done = map(items, limit, async (i) => {
    started.push(`start ${i}`);
    const d = deferred();
    pending.set(i, d);
    await d.promise;
    // Some calls take more steps after their await than others, as workflow code does.
    for (let k = 0; k < i % 3; k++) await Promise.resolve();
    started.push(`end ${i}`);
    return i * 10;
  });
  for (let round = 0; ; round++) {
    await flush();
    if (pending.size === 0) break;
    const inFlight = shuffled([...pending.keys()], seed + round);
    expect(inFlight.length).toBeLessThanOrEqual(limit);
    for (const i of inFlight.slice(0, 1 + ((seed + round) % inFlight.length))) {
      pending.get(i)!.resolve();
      pending.delete(i);
    }
  }
  expect(await done).toEqual(items.map((i) => i * 10));
  return started;
}

describe('mapBounded', () => {
  it('keeps the input order and never has more than `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (ms) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return ms * 2;
    });
    expect(out).toEqual([10, 2, 8, 4, 6]);
    expect(most).toBe(2);
  });

  it('maps nothing to nothing, and treats a limit below 1 as 1', async () => {
    expect(await mapBounded([], 3, (x: number) => Promise.resolve(x))).toEqual([]);
    expect(await mapBounded([1, 2], 0, (x) => Promise.resolve(x + 1))).toEqual([2, 3]);
  });

  it('rejects with the first error', async () => {
    await expect(
      mapBounded([1, 2, 3], 2, (x) => {
        if (x === 2) return Promise.reject(new Error('two'));
        return Promise.resolve(x);
      }),
    ).rejects.toThrow('two');
  });

  it.each([1, 2, 3, 5, 12])(
    'starts and ends calls in the same steps as the helper it replaced (limit %i)',
    async (limit) => {
      for (let seed = 1; seed <= 20; seed++) {
        expect(await steps(mapBounded, limit, seed)).toEqual(await steps(previousMapBounded, limit, seed));
      }
    },
  );
});
