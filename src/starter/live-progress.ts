// Fresher figures than the mediaProgress query's: the query answers as of the poll activity's last
// checkpoint (a status change), while every poll's observation is kept by the server as the
// pending poll activity's last failure (retry-as-poll: "still running, poll again in …"). That is
// server state, not history, so reading it through describe() costs the workflow nothing.
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { MEDIA_STATUS_BY_TASK_STATUS, type MediaProgress, type TaskObservation } from '../workflows/media/contract';
import { isoTime } from '../shared/time';

const POLL_ACTIVITY = 'pollTaskResult';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** The observation of the last poll of a pending poll activity, if it has made one. */
export function lastTaskPoll(pending: readonly PendingActivity[] | null | undefined): TaskObservation | undefined {
  const poll = pending?.find((a) => a.activityType?.name === POLL_ACTIVITY);
  const payload = poll?.lastFailure?.applicationFailureInfo?.details?.payloads?.[0];
  if (!payload) return undefined;
  try {
    const details = defaultPayloadConverter.fromPayload<TaskObservation | undefined>(payload);
    return details && typeof details.polls === 'number' && typeof details.observedAt === 'number' ? details : undefined;
  } catch {
    return undefined;
  }
}

/** The query's progress with a newer poll laid over it (same task only). */
export function withLastPoll(progress: MediaProgress, poll: TaskObservation | undefined): MediaProgress {
  if (!poll || poll.taskId !== progress.taskId) return progress;
  const queried = progress.observedAt ? Date.parse(progress.observedAt) : 0;
  if (poll.observedAt <= queried) return progress;
  return {
    ...progress,
    status: MEDIA_STATUS_BY_TASK_STATUS[poll.status] ?? poll.status,
    progressPercent: poll.progressPercent,
    eta: poll.eta,
    polls: progress.polls - (progress.taskPolls ?? 0) + poll.polls,
    taskPolls: poll.polls,
    observedAt: isoTime(poll.observedAt),
    nextPollAt: isoTime(poll.nextPollAt),
  };
}
