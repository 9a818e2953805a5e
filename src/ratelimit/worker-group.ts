// All workers run and stop as one, so no paced submit waits for a quota task queue's worker that is not there.
import type { Worker } from '@temporalio/worker';

export class WorkerGroup {
  constructor(
    readonly main: Worker,
    readonly quotaWorkers: Worker[],
    private readonly onStopped: () => void = () => {},
  ) {}

  /** Runs every worker until shutdown() or a signal (the SDK's); fails if one fails. */
  async run(): Promise<void> {
    try {
      const results = await Promise.allSettled(
        [this.main, ...this.quotaWorkers].map((w) =>
          w.run().catch((err: unknown) => {
            // One failed: stop the others too, as a single worker would stop.
            this.shutdown();
            throw err;
          }),
        ),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      this.onStopped();
    }
  }

  /** As Worker.runUntil: runs until `promise` settles, then shuts down and returns its outcome. */
  async runUntil<R>(promise: Promise<R>): Promise<R> {
    const running = this.run();
    const stoppedEarly = running.then(() => {
      throw new Error('The workers stopped before the work they ran for ended');
    });
    // Once `promise` wins, the workers stopping is expected: no unhandled rejection for it.
    stoppedEarly.catch(() => {});
    try {
      return await Promise.race([promise, stoppedEarly]);
    } finally {
      this.shutdown();
      await running;
    }
  }

  shutdown(): void {
    for (const w of [this.main, ...this.quotaWorkers]) {
      if (w.getState() === 'RUNNING') w.shutdown();
    }
  }
}
