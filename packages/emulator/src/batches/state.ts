// Pure state derivation. A batch's whole history follows from its creation time, its frozen plan and
// (if any) the instant a cancel was accepted, so its status and counters are computed on read from the
// emulated clock rather than pushed by timers: a clock jump (advance, speed change) is then exact.
//
// Timeline: VALIDATING for validatingMs → PROGRESS, request i (0-based) finishing at
// in_progress_at + (i+1)·perRequestMs → finalizing_at (status still PROGRESS; the spec has no
// FINALIZING status) → COMPLETED finalizingMs later. If COMPLETED would come after
// expires_at = created_at + windowMs, the batch turns EXPIRED at expires_at instead, and work stops
// there. A whole-batch failure turns the batch FAILED at the end of validation. A cancel at time c
// stops work at c (CANCELLING) and gives CANCELLED at c + cancellingMs.
import type { BatchStatus } from '@platform-ops/client';
import type { BatchPlan } from './settings';

export type TimelinePlan = Pick<
  BatchPlan,
  'validatingMs' | 'perRequestMs' | 'finalizingMs' | 'cancellingMs' | 'windowMs' | 'failWholeBatch'
>;

export interface Timeline {
  createdAt: number;
  plan: TimelinePlan;
  /** Number of requests in the input file. */
  total: number;
  /** failuresBefore[k]: how many of the first k requests fail (length total + 1). */
  failuresBefore: ArrayLike<number>;
  /** When a cancel was accepted; only ever set while the batch was VALIDATING or PROGRESS. */
  cancelRequestedAt?: number;
}

export type EndStatus = 'COMPLETED' | 'FAILED' | 'EXPIRED' | 'CANCELLED';

export interface BatchState {
  status: BatchStatus;
  expiresAt: number;
  /** Each is null until it has happened. */
  inProgressAt: number | null;
  finalizingAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  /** Last change (status or counters); null while nothing has changed since creation. */
  updatedAt: number | null;
  /** 1 at creation, +1 per status change. */
  version: number;
  /** Requests that have run (succeeded or failed). */
  finished: number;
  completed: number;
  failed: number;
  /** Where the batch ends up, and when (known in advance, since nothing but a cancel changes it). */
  end: { status: EndStatus; at: number };
}

/** Where a batch ends if nobody cancels it. */
function naturalEnd(t: Timeline): { status: 'COMPLETED' | 'FAILED' | 'EXPIRED'; at: number } {
  const { validatingMs, perRequestMs, finalizingMs, windowMs, failWholeBatch } = t.plan;
  const progressAt = t.createdAt + validatingMs;
  const expiresAt = t.createdAt + windowMs;
  if (failWholeBatch) return progressAt <= expiresAt ? { status: 'FAILED', at: progressAt } : expired(expiresAt);
  const completedAt = progressAt + t.total * perRequestMs + finalizingMs;
  return completedAt <= expiresAt ? { status: 'COMPLETED', at: completedAt } : expired(expiresAt);
}

const expired = (at: number) => ({ status: 'EXPIRED' as const, at });

/** Where a batch ends, and when, given its cancel (if any). */
export function endOf(t: Timeline): BatchState['end'] {
  const cancelAt = t.cancelRequestedAt;
  return cancelAt !== undefined ? { status: 'CANCELLED', at: cancelAt + t.plan.cancellingMs } : naturalEnd(t);
}

/** Requests finished by `at` (work never runs past `stopAt`). */
function finishedBy(t: Timeline, at: number): number {
  const { validatingMs, perRequestMs, failWholeBatch } = t.plan;
  const progressAt = t.createdAt + validatingMs;
  if (failWholeBatch || at < progressAt) return 0;
  if (perRequestMs === 0) return t.total;
  return Math.min(t.total, Math.floor((at - progressAt) / perRequestMs));
}

/** The batch as it stands at emulated time `now`. */
export function deriveState(t: Timeline, now: number): BatchState {
  const { validatingMs, perRequestMs, windowMs, failWholeBatch } = t.plan;
  const expiresAt = t.createdAt + windowMs;
  const natural = naturalEnd(t);
  const cancelAt = t.cancelRequestedAt;
  const end = endOf(t);

  // Which of the in-between events the batch reaches before work stops.
  const progressAt = t.createdAt + validatingMs;
  const allDoneAt = progressAt + t.total * perRequestMs;
  const reaches = (at: number): boolean => {
    if (failWholeBatch) return false;
    if (cancelAt !== undefined) return at <= cancelAt;
    return natural.status === 'COMPLETED' || at < expiresAt;
  };
  const schedule = {
    inProgressAt: reaches(progressAt) ? progressAt : null,
    finalizingAt: reaches(allDoneAt) ? allDoneAt : null,
    completedAt: end.status === 'COMPLETED' ? end.at : null,
    failedAt: end.status === 'FAILED' ? end.at : null,
    expiredAt: end.status === 'EXPIRED' ? end.at : null,
    cancellingAt: cancelAt ?? null,
    cancelledAt: end.status === 'CANCELLED' ? end.at : null,
  };
  const seen = (at: number | null): number | null => (at !== null && at <= now ? at : null);
  const happened = {
    inProgressAt: seen(schedule.inProgressAt),
    finalizingAt: seen(schedule.finalizingAt),
    completedAt: seen(schedule.completedAt),
    failedAt: seen(schedule.failedAt),
    expiredAt: seen(schedule.expiredAt),
    cancellingAt: seen(schedule.cancellingAt),
    cancelledAt: seen(schedule.cancelledAt),
  };

  let status: BatchStatus;
  if (now >= end.at) status = end.status;
  else if (happened.cancellingAt !== null) status = 'CANCELLING';
  else if (happened.inProgressAt !== null) status = 'PROGRESS';
  else status = 'VALIDATING';

  const stopAt = cancelAt ?? (natural.status === 'EXPIRED' ? expiresAt : Infinity);
  const finished = finishedBy(t, Math.min(now, stopAt));
  const failed = t.failuresBefore[finished] ?? 0;

  const times = Object.values(happened).filter((v): v is number => v !== null);
  if (finished > 0) times.push(progressAt + finished * perRequestMs);
  const updatedAt = times.length > 0 ? Math.max(...times) : null;

  return {
    status,
    expiresAt,
    ...happened,
    updatedAt,
    version: 1 + Object.values(happened).filter((v) => v !== null).length,
    finished,
    completed: finished - failed,
    failed,
    end,
  };
}

/** Whether a batch in this status may still be cancelled. */
export const isCancellable = (status: BatchStatus): boolean => status === 'VALIDATING' || status === 'PROGRESS';
