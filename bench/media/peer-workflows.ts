// The peer: the generation a user writes on Temporal as its docs and samples teach polling, in the
// same worker settings as ours. A submit activity, then either
//   - frequent polling: one poll activity that loops every second and heartbeats (the platform SDK's
//     interval; the heartbeat timeout lets the server notice a lost worker), or
//   - infrequent polling: one poll activity that fails while the task runs, retried every 10 s by its
//     retry policy (backoffCoefficient 1).
// No search attributes, queries or fairness keys: what the docs show, and nothing the platform needs.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PeerActivities, PeerPollResult } from './peer-activities';

export interface PeerGenerationInput {
  prompt: string;
}

export interface PeerGenerationResult {
  taskId: string;
  /** Real epoch ms: the platform took the submit; the poll saw the end. */
  submittedAt: number;
  doneAt: number;
  outputs: PeerPollResult['outputs'];
}

/** A generation's bound, as ours has by default (deadlineSeconds 7,200). */
const DEADLINE = '2 hours';

/**
 * A paid call: retried only when the platform refused it clearly (the activity makes an answer that may
 * have created a task non-retryable), on the platform client's 30 s request timeout.
 */
const { peerSubmit } = proxyActivities<PeerActivities>({
  startToCloseTimeout: '40s',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 5 },
});

const { peerPollLoop } = proxyActivities<PeerActivities>({
  scheduleToCloseTimeout: DEADLINE,
  startToCloseTimeout: DEADLINE,
  // The samples' 30 s: a lost worker is noticed within it, and a slow poll does not trip it.
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

const { peerPollOnce } = proxyActivities<PeerActivities>({
  scheduleToCloseTimeout: DEADLINE,
  startToCloseTimeout: '40s',
  retry: { initialInterval: '10s', backoffCoefficient: 1, maximumInterval: '10s' },
});

function ended(taskId: string, submittedAt: number, end: PeerPollResult): PeerGenerationResult {
  if (end.status !== 'TASK_STATUS_SUCCEED') {
    throw ApplicationFailure.nonRetryable(`task ${taskId} ended ${end.status}: ${end.reason ?? 'no reason'}`);
  }
  return { taskId, submittedAt, doneAt: end.observedAt, outputs: end.outputs };
}

export async function peerFrequentPolling(input: PeerGenerationInput): Promise<PeerGenerationResult> {
  const { taskId, submittedAt } = await peerSubmit(input.prompt);
  return ended(taskId, submittedAt, await peerPollLoop(taskId, 1_000));
}

export async function peerInfrequentPolling(input: PeerGenerationInput): Promise<PeerGenerationResult> {
  const { taskId, submittedAt } = await peerSubmit(input.prompt);
  return ended(taskId, submittedAt, await peerPollOnce(taskId));
}
