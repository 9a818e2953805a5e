// `--wait`: the workflow's progress on stderr while waiting, so that stdout keeps only the result (pipeable JSON).
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter, type PayloadCodec, type QueryDefinition } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { isoTime } from '../shared/time';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

export interface ProgressView<P, O = never> {
  query: QueryDefinition<P>;
  /** A poll activity fresher than the query; `lay` answers undefined for another task or an error. */
  poll?: { activity: string; lay(progress: P, poll: O): Partial<P> | undefined };
  render(progress: P, now: number): string;
  /** A change worth a new line where the line is not redrawn in place. */
  changeKey(progress: P): string;
  summary?(result: unknown): string[];
}

export const defineView = <P, O = never>(view: ProgressView<P, O>) => view as ProgressView<unknown>;

interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Terminal width; a longer line would wrap, and `\r` would then redraw only its last row. */
  columns?: number;
}

export interface WatchedWorkflow<P> {
  query(def: QueryDefinition<P>): Promise<P>;
  result(): Promise<unknown>;
  describe?(): Promise<Pick<WorkflowExecutionDescription, 'raw'>>;
}

const CLEAR_TO_END = '\x1b[K';

/** `12s`, `3m05s`, `2h07m`: short enough to keep the line from jumping around. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `[######----]  52%`, or an empty bar and `?%` before the platform reports any progress. */
export function renderBar(percent: number | undefined, width = 20): string {
  const cells = Math.max(0, Math.floor(width));
  const clamped = percent === undefined || !Number.isFinite(percent) ? undefined : Math.min(100, Math.max(0, percent));
  // Floor, so neither the number nor the bar says 100% (done) while the task is not.
  const label = (clamped === undefined ? '?' : String(Math.floor(clamped))).padStart(3) + '%';
  if (cells === 0) return label;
  const filled = clamped === undefined ? 0 : Math.floor((clamped / 100) * cells);
  return `[${'#'.repeat(filled)}${'-'.repeat(cells - filled)}]  ${label}`;
}

/** `progress` with a pending poll's newer observation (its last "still running" failure's details) laid over it. */
export function withLastPoll<P, O extends { observedAt: number; nextPollAt?: number; polls: number }>(
  progress: P,
  pending: readonly PendingActivity[] | null | undefined,
  poll: NonNullable<ProgressView<P, O>['poll']>,
): P {
  let newest: { o: O; laid: Partial<P> } | undefined;
  for (const a of pending ?? []) {
    const payload =
      a.activityType?.name === poll.activity && a.lastFailure?.applicationFailureInfo?.details?.payloads?.[0];
    if (!payload) continue;
    try {
      const o = defaultPayloadConverter.fromPayload<O | undefined>(payload);
      const valid = o && typeof o.observedAt === 'number' && typeof o.polls === 'number';
      const laid = valid && (!newest || o.observedAt > newest.o.observedAt) ? poll.lay(progress, o) : undefined;
      if (laid) newest = { o: o!, laid };
    } catch {
      // Not an observation.
    }
  }
  const queried = (progress as { observedAt?: string }).observedAt;
  if (!newest || newest.o.observedAt <= (queried ? Date.parse(queried) : 0)) return progress;
  const { o, laid } = newest;
  return { ...progress, ...laid, observedAt: isoTime(o.observedAt), nextPollAt: isoTime(o.nextPollAt) };
}

/** A describe gives the pending activities' failure details as stored, encrypted. */
async function decodedPending(
  pending: readonly PendingActivity[] | null | undefined,
  codecs: readonly PayloadCodec[],
): Promise<PendingActivity[]> {
  return Promise.all(
    (pending ?? []).map(async (a) => {
      const info = a.lastFailure?.applicationFailureInfo;
      if (!info?.details?.payloads?.length || codecs.length === 0) return a;
      const payloads = await decode([...codecs], info.details.payloads);
      return { ...a, lastFailure: { ...a.lastFailure, applicationFailureInfo: { ...info, details: { payloads } } } };
    }),
  );
}

/** As `workflow.result()`, redrawing every `intervalMs`: countdowns move on every tick even when a query is slow. */
export async function waitWithProgress<P>(
  workflow: WatchedWorkflow<P>,
  view: ProgressView<P>,
  opts: { stream?: ProgressStream; intervalMs?: number; now?: () => number; codecs?: readonly PayloadCodec[] } = {},
): Promise<unknown> {
  const { stream = process.stderr, intervalMs = 1000, now = () => Date.now(), codecs = [] } = opts;
  const progress = async (): Promise<P> => {
    const queried = await workflow.query(view.query);
    if (!view.poll) return queried;
    const described = await workflow.describe?.().catch(() => undefined);
    const pending = await decodedPending(described?.raw.pendingActivities, codecs).catch(() => undefined);
    return withLastPoll(queried, pending, view.poll);
  };
  let latest: P | undefined;
  let lastKey: string | undefined;
  let querying = false;
  let stopped = false;
  let drawn = false;
  // In place on a terminal, else one line per change (countdowns would only be noise).
  const show = (p: P) => {
    const line = view.render(p, now());
    if (stream.isTTY) {
      const fit = stream.columns && stream.columns > 1 ? line.slice(0, stream.columns - 1) : line;
      stream.write(`\r${fit}${CLEAR_TO_END}`);
      drawn = true;
    } else if (view.changeKey(p) !== lastKey) {
      lastKey = view.changeKey(p);
      stream.write(`${line}\n`);
    }
  };
  const tick = () => {
    if (latest) show(latest);
    // One query at a time: with no worker polling yet, a query waits until the server gives up.
    if (querying) return;
    querying = true;
    void progress()
      .then((p) => {
        if (stopped) return;
        latest = p;
        show(p);
      })
      // No worker yet, the workflow closing, a worker without the query: result() reports what matters.
      .catch(() => undefined)
      .finally(() => {
        querying = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  tick();
  try {
    return await workflow.result();
  } finally {
    stopped = true;
    clearInterval(timer);
    if (drawn) stream.write('\n');
  }
}
