import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  sleep,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import { isTerminalBatchStatus, type BatchObservation } from '@platform-ops/client';
import type { Activities } from './activities';
import { summarized, WAITING } from '../../workflows/activity-summary';
import { HOUR_MS, retryAsPollOptions, UNTIL_DONE } from '../../workflows/retry-policies';
import type { BatchRun } from './workflows-run';

const { cancelPlatformBatch } = proxyActivities<Activities>(UNTIL_DONE);

// Percent of the requests: the query's counts stay fresh for a few events each.
const PROGRESS_STEP = 10;

type PollBatch = ActivityInterfaceFor<Activities>['pollBatch'];

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** A promise that never rejects: a race's losers (cancelled timers, say) must not go unhandled. */
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

// A cancel of the workflow itself cancels the platform batch too: it must not run on, unowned.
export async function followToEnd(run: BatchRun): Promise<BatchObservation> {
  const { input } = run;
  const { pollBatch } = proxyActivities<Activities>(
    retryAsPollOptions((input.windowHours + 2) * HOUR_MS + input.graceMinutes * 60_000, { grace: false }),
  );
  try {
    await raceWindowAndCancel(run, pollBatch);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await CancellationScope.nonCancellable(async () => {
      await cancelBatch(run, pollBatch);
      run.end();
      run.progress.update({ status: 'CANCELLED', outcome: 'Cancelled' });
    });
    throw err;
  }
  return run.end();
}

// The window is a durable timer from the batch's creation, then a grace period for the platform's final state.
async function raceWindowAndCancel(run: BatchRun, pollBatch: PollBatch): Promise<void> {
  const following = new CancellationScope();
  const ended = settle(following.run(() => followBatch(run, pollBatch)));
  const waits = new CancellationScope();
  const cancelAsked = settle(waits.run(() => condition(() => run.cancelRequested)));
  const race = async (timerMs: number) => {
    const timer = settle(waits.run(() => sleep(Math.max(1, timerMs))));
    const [why, settled] = await Promise.race([
      ended.then((r) => ['ended', r] as const),
      timer.then((r) => ['window', r] as const),
      cancelAsked.then((r) => ['update', r] as const),
    ]);
    if (!settled.ok) throw settled.error; // the workflow itself is being cancelled, or a real failure
    return why;
  };
  let why = await race(run.windowEndsAt - run.started.at);
  if (why === 'window') why = await race(run.input.graceMinutes * 60_000);
  waits.cancel();
  if (why === 'ended') {
    const r = await ended;
    if (!r.ok) throw r.error;
    run.last = r.value;
  } else {
    run.cancelledBy = why;
    following.cancel();
    await ended;
    await cancelBatch(run, pollBatch);
  }
}

// The poll activity comes back only at checkpoints, a handful however long the batch takes.
async function followBatch(
  run: BatchRun,
  pollBatch: PollBatch,
  progressStep = PROGRESS_STEP,
): Promise<BatchObservation> {
  const { batchId } = run;
  for (;;) {
    const poll = summarized(pollBatch, `batch ${batchId}: ${WAITING}`);
    const checkpoint = await poll({ batchId, polling: run.input.polling, since: run.last, progressStep });
    run.checkpoint(checkpoint.observation);
    if (checkpoint.terminal) return checkpoint.observation;
  }
}

async function cancelBatch(run: BatchRun, pollBatch: PollBatch): Promise<void> {
  const { batchId } = run;
  run.progress.update({ status: 'CANCELLING' });
  const cancelling = await summarized(cancelPlatformBatch, `cancel batch ${batchId}`)(batchId);
  run.last = { ...run.last, status: cancelling.status, requestCounts: cancelling.requestCounts };
  if (!isTerminalBatchStatus(run.last.status)) run.last = await followBatch(run, pollBatch, 0);
}
