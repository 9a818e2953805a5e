// The peer's activities: the same platform client as ours, called the way the Temporal docs teach
// polling (one looping activity that heartbeats, or one attempt per poll).
import { ApplicationFailure } from '@temporalio/common';
import { heartbeat, sleep } from '@temporalio/activity';
import { isTerminalTaskStatus, type TaskResult } from '@platform-ops/client';
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';

export interface PeerPollResult {
  status: string;
  reason?: string;
  /** Real epoch ms the poll saw the end. */
  observedAt: number;
  outputs: Array<{ kind: string; url: string }>;
}

/** A platform error the retry policy should not retry: a refusal that stays one, or a submit that may have been taken. */
function asFailure(err: unknown, paid: boolean): unknown {
  if (!(err instanceof PlatformError)) return err;
  if (err.retryable && !(paid && err.maybeDelivered)) {
    return ApplicationFailure.create({ message: err.message, type: err.kind, nextRetryDelay: err.retryAfterMs });
  }
  return ApplicationFailure.nonRetryable(err.message, `${err.kind}:${err.status ?? ''}`);
}

function endOf(result: TaskResult): PeerPollResult {
  return {
    status: result.task.status,
    reason: result.task.reason ?? undefined,
    observedAt: Date.now(),
    outputs: [
      ...result.images.map((o) => ({ kind: 'image', url: o.image_url })),
      ...result.videos.map((o) => ({ kind: 'video', url: o.video_url })),
      ...result.audios.map((o) => ({ kind: 'audio', url: o.audio_url })),
    ],
  };
}

export function createPeerActivities(platform: PlatformClient) {
  return {
    async peerSubmit(prompt: string): Promise<{ taskId: string; submittedAt: number }> {
      try {
        const { task_id } = await platform.submitTextToVideo({ prompt });
        return { taskId: task_id, submittedAt: Date.now() };
      } catch (err) {
        throw asFailure(err, true);
      }
    },

    /** Polls every `intervalMs` until the task ends; a passing platform error waits for the next round. */
    async peerPollLoop(taskId: string, intervalMs: number): Promise<PeerPollResult> {
      for (;;) {
        try {
          const result = await platform.getTaskResult(taskId);
          if (isTerminalTaskStatus(result.task.status)) return endOf(result);
        } catch (err) {
          if (!(err instanceof PlatformError && err.retryable)) throw asFailure(err, false);
        }
        heartbeat();
        // Throws once the activity is cancelled, so a cancelled run stops polling.
        await sleep(intervalMs);
      }
    },

    /** One poll: the end, or a benign failure that the retry policy turns into the next poll. */
    async peerPollOnce(taskId: string): Promise<PeerPollResult> {
      let result: TaskResult;
      try {
        result = await platform.getTaskResult(taskId);
      } catch (err) {
        throw asFailure(err, false);
      }
      if (isTerminalTaskStatus(result.task.status)) return endOf(result);
      throw ApplicationFailure.create({
        message: `task ${taskId} is ${result.task.status}`,
        type: 'TaskNotDone',
        category: 'BENIGN',
      });
    },
  };
}

export type PeerActivities = ReturnType<typeof createPeerActivities>;
