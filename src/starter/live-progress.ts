// Fresher figures than the mediaProgress query's: the query answers as of the poll activity's last
// checkpoint (status change, 25 % step), while the activity heartbeats every poll's observation. The
// heartbeat is server state, not history, so reading it through describe() costs the workflow nothing.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { MEDIA_STATUS_BY_TASK_STATUS, type MediaProgress, type TaskObservation } from '../api/schemas/media';
import { isoTime } from '../shared/time';

const WAIT_ACTIVITY = 'waitForTaskResult';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** The observation in the wait activity's last heartbeat, if it is pending and has heartbeated. */
export function heartbeatObservation(
  pending: readonly PendingActivity[] | null | undefined,
): TaskObservation | undefined {
  const activity = pending?.find((a) => a.activityType?.name === WAIT_ACTIVITY);
  const payload = activity?.heartbeatDetails?.payloads?.[0];
  if (!payload) return undefined;
  try {
    const details = defaultPayloadConverter.fromPayload<TaskObservation | undefined>(payload);
    return details && typeof details.polls === 'number' && typeof details.observedAt === 'number' ? details : undefined;
  } catch {
    return undefined;
  }
}

/** The query's progress with a newer heartbeat laid over it (same task only). */
export function withHeartbeat(progress: MediaProgress, hb: TaskObservation | undefined): MediaProgress {
  if (!hb || hb.taskId !== progress.taskId) return progress;
  const queried = progress.observedAt ? Date.parse(progress.observedAt) : 0;
  if (hb.observedAt <= queried) return progress;
  return {
    ...progress,
    status: MEDIA_STATUS_BY_TASK_STATUS[hb.status] ?? hb.status,
    progressPercent: hb.progressPercent,
    eta: hb.eta,
    polls: progress.polls - (progress.taskPolls ?? 0) + hb.polls,
    taskPolls: hb.polls,
    observedAt: isoTime(hb.observedAt),
    nextPollAt: isoTime(hb.nextPollAt),
  };
}
