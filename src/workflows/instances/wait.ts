// Waiting for an instance's status after acting on it (restart, create, start, stop, delete), by
// retry-as-poll (src/activities/instances.ts, pollInstanceStatus): the poll activity runs again on its
// own while the status stays the same, and comes back only when it changes, so a wait of any length
// is a few activities and holds nothing on the worker between polls.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import type { Activities } from '../../activities/instances/activities';
import type { InstanceObservation } from '../../activities/instances/activities';
import { pollTimedOut, retryAsPollOptions } from '../retry-policies';
import { summarized } from '../activity-summary';

/** How a wait ended: the statuses it saw, in order, and the polls and time it took. */
export interface InstanceWaitResult {
  reached: boolean;
  statuses: string[];
  finalStatus: string;
  polls: number;
  waitedMs: number;
}

export interface InstanceWait {
  instanceId: string;
  target: string;
  timeoutSeconds: number;
  pollInitialSeconds: number;
  pollMaxSeconds: number;
}

/** Polls until `target` or `timeoutSeconds` from now; `onChange` sees the statuses at each change. */
export async function pollUntilStatus(
  wait: InstanceWait,
  onChange: (statuses: string[]) => void,
): Promise<InstanceWaitResult> {
  // Workflow time: the deadline is the same on every replay.
  const startedAt = Date.now();
  const deadlineAt = startedAt + wait.timeoutSeconds * 1000;
  const result = (reached: boolean, last: InstanceObservation | undefined): InstanceWaitResult => ({
    reached,
    statuses: last?.statuses ?? [],
    finalStatus: last?.statuses[last.statuses.length - 1] ?? 'unknown',
    polls: last?.polls ?? 0,
    waitedMs: Date.now() - startedAt,
  });
  let since: InstanceObservation | undefined;
  for (;;) {
    const { pollInstanceStatus } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
    let checkpoint;
    try {
      checkpoint = await summarized(
        pollInstanceStatus,
        `poll instance ${wait.instanceId} for ${wait.target}`,
      )({
        instanceId: wait.instanceId,
        target: wait.target,
        deadlineAt,
        initialIntervalMs: wait.pollInitialSeconds * 1000,
        maxIntervalMs: wait.pollMaxSeconds * 1000,
        since,
      });
    } catch (err) {
      // The server's bound ran out (a lost worker, or a retry that would land past it): timed out too.
      if (pollTimedOut(err)) {
        return result(false, since);
      }
      throw err;
    }
    since = checkpoint.observation;
    if (checkpoint.outcome !== 'changed') return result(checkpoint.outcome === 'reached', since);
    onChange(since.statuses);
  }
}

/** The non-retryable failure of a wait that ran out, naming what it saw. */
export function waitTimedOut(wait: InstanceWait, what: string, waited: InstanceWaitResult): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.DeadlineExceeded,
    nonRetryable: true,
    message: `Instance ${wait.instanceId} was not ${wait.target} ${wait.timeoutSeconds}s after the ${what} (statuses seen: ${waited.statuses.join(' → ') || 'none'})`,
    details: [waited],
  });
}

/** A wait's result as the workflows return it. */
export const waitSummary = (instanceId: string, waited: InstanceWaitResult) => ({
  instanceId,
  statuses: waited.statuses,
  finalStatus: waited.finalStatus,
  polls: waited.polls,
  waitedSeconds: Math.round(waited.waitedMs / 100) / 10,
});
