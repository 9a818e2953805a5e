// Bounded concurrency, once: a pool of at most `width` lanes (lanes()), and the two ways this service
// feeds it: mapping a list (mapBounded: a decision's questions, the billing report's windows)
// and coalescing requests that arrive over time into batches (BatchLanes: budget reservations).
// Plain promises, no timers, no Node modules: deterministic in workflow code, usable in activities.

/** One piece of work for a lane: started, awaited, and its result handed to `done`. */
interface Work<R> {
  start(): Promise<R>;
  done(result: R): void;
}

/**
 * At most `width` lanes, each running the work `take` hands it until `take` has none. A lane takes
 * its next piece in the step it sees the last one end (one await per piece), which fixes the order
 * and activations of the activities it starts in workflow code. Returns `fill`: it opens lanes while
 * there is room and work (call it again when work arrives) and settles when they close, rejecting with
 * the first error of their work (that lane closes; the others go on). Not async: no extra step.
 */
function lanes<R>(width: number, take: () => Work<R> | undefined): () => Promise<unknown> {
  let open = 0;
  const lane = async (first: Work<R>): Promise<void> => {
    open++;
    try {
      for (let work: Work<R> | undefined = first; work; work = take()) work.done(await work.start());
    } finally {
      open--;
    }
  };
  return () => {
    const opened: Promise<void>[] = [];
    while (open < width) {
      const work = take();
      if (!work) break;
      opened.push(lane(work)); // counts itself open before it first waits
    }
    return Promise.all(opened);
  };
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const take = (): Work<R> | undefined => {
    if (next >= items.length) return undefined;
    const i = next++;
    return { start: () => fn(items[i]), done: (result) => (results[i] = result) };
  };
  await lanes(Math.max(1, limit), take)();
  return results;
}

interface Waiting<I, O> {
  item: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

/**
 * Coalescing over the same lanes: items asked for while every lane is busy wait, and go out together
 * (up to `maxBatch`, in the order asked) as soon as a lane frees. Under a burst they ride in a few
 * large batches instead of queueing one by one; when all is quiet an item goes out alone, at once.
 */
export class BatchLanes<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private readonly fill: () => Promise<unknown>;

  /** `send` answers each item of a batch, in order; when it throws, every item of that batch fails. */
  constructor(
    width: number,
    maxBatch: number,
    private readonly send: (items: I[]) => Promise<O[]>,
  ) {
    this.fill = lanes(width, () => {
      if (this.waiting.length === 0) return undefined;
      const batch = this.waiting.splice(0, maxBatch);
      return { start: () => this.deliver(batch), done: () => undefined };
    });
  }

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      // Never rejects: deliver settles every item of its batch itself.
      void this.fill();
    });
  }

  /** Items waiting for a lane (for tests and progress). */
  get queued(): number {
    return this.waiting.length;
  }

  private async deliver(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const outs = await this.send(batch.map((w) => w.item));
      batch.forEach((w, i) =>
        i < outs.length ? w.resolve(outs[i]) : w.reject(new Error(`no answer for item ${i} of a batch`)),
      );
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
