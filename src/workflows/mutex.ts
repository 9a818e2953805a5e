// One-at-a-time sections for workflow code (update handlers run concurrently). Deterministic: it only
// chains promises.
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every section started before it has ended, however that one ended. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
