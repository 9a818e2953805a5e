// At most `width` batches in flight at a time. Whatever is asked for while every lane is busy waits,
// and goes out together (up to `maxBatch` items, in the order asked) as soon as a lane frees: under
// a burst the items ride in few large batches instead of queueing one by one behind the lanes, and
// when all is quiet an item goes out alone, at once. Plain promises, no Node modules: usable from
// workflow and activity code alike.
export class BatchLanes<I, O> {
  private running = 0;
  private readonly waiting: { item: I; resolve(out: O): void; reject(err: unknown): void }[] = [];

  /** `send` answers each item of a batch, in order; when it throws, every item of that batch fails. */
  constructor(
    private readonly width: number,
    private readonly maxBatch: number,
    private readonly send: (items: I[]) => Promise<O[]>,
  ) {}

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  /** Items waiting for a lane (for tests and progress). */
  get queued(): number {
    return this.waiting.length;
  }

  private next(): void {
    while (this.running < this.width && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.running++;
      void Promise.resolve()
        .then(() => this.send(batch.map((w) => w.item)))
        .then(
          (outs) => {
            batch.forEach((w, i) =>
              i < outs.length ? w.resolve(outs[i]) : w.reject(new Error(`no answer for item ${i} of a batch`)),
            );
          },
          (err: unknown) => {
            for (const w of batch) w.reject(err);
          },
        )
        .finally(() => {
          this.running--;
          this.next();
        });
    }
  }
}
