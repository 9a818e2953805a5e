// `start mediaGeneration --wait`: waits for the result while showing the workflow's progress on
// stderr, so stdout keeps only what `start` prints today (the result JSON stays pipeable).
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { mediaProgressQuery, type MediaProgress } from '../workflows/media/contract';
import { lastTaskPoll, withLastPoll } from './live-progress';
import { renderMediaProgress } from './progress';

/** Where the progress goes: process.stderr, or a fake in tests. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Terminal width; a longer line would wrap, and `\r` would then redraw only its last row. */
  columns?: number;
}

/** The part of a WorkflowHandle the watcher uses (a fake in tests). */
export interface MediaWorkflow {
  query(def: typeof mediaProgressQuery): Promise<MediaProgress>;
  result(): Promise<unknown>;
  /** For the poll activity's last poll, fresher than the query between checkpoints. */
  describe?(): Promise<Pick<WorkflowExecutionDescription, 'raw'>>;
}

interface WatchOptions {
  stream?: ProgressStream;
  intervalMs?: number;
  now?: () => number;
}

const CLEAR_TO_END = '\x1b[K';

/** How one workflow's progress is drawn: its line, and what counts as a change worth a new line. */
export interface ProgressView<P> {
  render(progress: P, now: number): string;
  changeKey(progress: P): string;
}

const MEDIA_VIEW: ProgressView<MediaProgress> = {
  render: renderMediaProgress,
  changeKey: (p) => `${p.status ?? ''}|${p.progressPercent ?? ''}`,
};

/** Draws progress lines: in place on a terminal, else one line per change of status or progress. */
function progressPrinter<P = MediaProgress>(
  stream: ProgressStream,
  view: ProgressView<P> = MEDIA_VIEW as unknown as ProgressView<P>,
) {
  let drawn = false;
  let lastKey: string | undefined;
  return {
    show(progress: P, now: number): void {
      const line = view.render(progress, now);
      if (stream.isTTY) {
        const fit = stream.columns && stream.columns > 1 ? line.slice(0, stream.columns - 1) : line;
        stream.write(`\r${fit}${CLEAR_TO_END}`);
        drawn = true;
        return;
      }
      // A log or a pipe: countdowns changing every second would only be noise.
      const key = view.changeKey(progress);
      if (key === lastKey) return;
      lastKey = key;
      stream.write(`${line}\n`);
    },
    /** Ends the line being redrawn, so whatever is printed next starts on a line of its own. */
    end(): void {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/** A workflow whose progress can be asked for (a WorkflowHandle, or a fake in tests). */
interface WatchedWorkflow<P> {
  /** The workflow's progress query, fresher figures laid over it where there are some. */
  progress(): Promise<P>;
  result(): Promise<unknown>;
}

/**
 * Resolves or rejects as `workflow.result()` does. Meanwhile, about every `intervalMs`, asks for the
 * progress and redraws; the countdowns are redrawn on every tick even when the query is slow.
 */
export async function waitWithProgress<P>(
  workflow: WatchedWorkflow<P>,
  view: ProgressView<P>,
  opts: WatchOptions = {},
): Promise<unknown> {
  const { stream = process.stderr, intervalMs = 1000, now = () => Date.now() } = opts;
  const printer = progressPrinter<P>(stream, view);
  let latest: P | undefined;
  let querying = false;
  let stopped = false;

  const tick = () => {
    if (latest) printer.show(latest, now());
    // One query at a time: with no worker polling yet, a query waits until the server gives up.
    if (querying) return;
    querying = true;
    void workflow
      .progress()
      .then((progress) => {
        if (stopped) return;
        latest = progress;
        printer.show(progress, now());
      })
      .catch(() => {
        // No worker yet, the workflow closing, or a worker without the query: the progress is only a
        // convenience and result() reports what matters, so this tick is skipped.
      })
      .finally(() => {
        querying = false;
      });
  };

  const timer = setInterval(tick, intervalMs);
  tick();
  try {
    return await workflow.result();
  } finally {
    // The result (or its failure) is in: no more redraws, and no timer left to keep the process alive.
    stopped = true;
    clearInterval(timer);
    printer.end();
  }
}

/** mediaGeneration: the query, with the poll activity's newer poll laid over it. */
export function waitWithMediaProgress(workflow: MediaWorkflow, opts: WatchOptions = {}): Promise<unknown> {
  return waitWithProgress(
    {
      progress: async () => {
        const queried = await workflow.query(mediaProgressQuery);
        const described = await workflow.describe?.().catch(() => undefined);
        return withLastPoll(queried, lastTaskPoll(described?.raw.pendingActivities));
      },
      result: () => workflow.result(),
    },
    MEDIA_VIEW,
    opts,
  );
}
