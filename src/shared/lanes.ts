// Bounded concurrency: a pool of lanes, fed by mapping a list (mapBounded) or by coalescing requests into batches
// (BatchLanes). Plain promises, no timers, no Node modules: deterministic in workflow code, usable in activities.

interface Work<R> {
  start(): Promise<R>;
  done(result: R): void;
}

/**
 * At most `width` lanes. A lane takes its next piece in the step it sees the last one end (one await per piece),
 * which fixes the order of the activities it starts in workflow code. Returns `fill`, which opens lanes while there
 * is room and work; not async: no extra step.
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

/** At most `limit` calls in flight; results keep the input order. */
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

/** Items asked for while every lane is busy go out together (up to `maxBatch`, in order) when a lane frees. */
export class BatchLanes<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private readonly fill: () => Promise<unknown>;

  /** When `send` throws, every item of that batch fails. */
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
