// Fresher figures than the mediaProgress query's: the query answers as of the poll activity's last
// checkpoint (a status change), while every poll's observation is kept by the server as the
// pending poll activity's last failure (retry-as-poll: "still running, poll again in …"), or, for runs
// that wait in the older heartbeating activity, as its heartbeat. Both are server state, not history,
// so reading them through describe() costs the workflow nothing.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { MEDIA_STATUS_BY_TASK_STATUS, type MediaProgress, type TaskObservation } from '../workflows/media/contract';
import { isoTime } from '../shared/time';

const POLL_ACTIVITY = 'pollTaskResult';
const HEARTBEATING_WAIT_ACTIVITY = 'waitForTaskResult';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** The observation of the last poll of a pending poll or wait activity, if it has made one. */
export function heartbeatObservation(
  pending: readonly PendingActivity[] | null | undefined,
): TaskObservation | undefined {
  const poll = pending?.find((a) => a.activityType?.name === POLL_ACTIVITY);
  const wait = pending?.find((a) => a.activityType?.name === HEARTBEATING_WAIT_ACTIVITY);
  const payload =
    poll?.lastFailure?.applicationFailureInfo?.details?.payloads?.[0] ?? wait?.heartbeatDetails?.payloads?.[0];
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
