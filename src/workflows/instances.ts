// GPU instance workflows: renew for months, restart and wait until running.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { FailureType } from '../api/failures';
import { WorkflowType } from '../api/names';
import {
  RenewInstanceInput,
  RestartInstanceInput,
  type RenewInstanceResult,
  type RestartInstanceResult,
} from '../api/schemas/instances';
import { parseInput } from '../api/validate';
import type { Activities } from '../activities';
import { trackStatus } from './status';

const platform = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
});

/** Renews a subscription instance. A retried renew never pays twice (see the renewInstance activity). */
export async function renewInstance(rawInput: RenewInstanceInput): Promise<RenewInstanceResult> {
  const input = parseInput(RenewInstanceInput, rawInput, WorkflowType.renewInstance);
  const status = trackStatus(WorkflowType.renewInstance, 'READING_INSTANCE', { instanceId: input.instanceId });

  const before = await platform.getInstance(input.instanceId);
  status.set('RENEWING', { endTimeBefore: before.endTime });
  const { alreadyApplied } = await platform.renewInstance({ ...input, endTimeBefore: before.endTime });
  const after = await platform.getInstance(input.instanceId);
  status.set('RENEWED', { endTimeAfter: after.endTime });

  return {
    instanceId: input.instanceId,
    months: input.months,
    endTimeBefore: before.endTime,
    endTimeAfter: after.endTime,
    alreadyApplied,
  };
}

/** Restarts an instance, then waits (polling with backoff) until it is running again or time is up. */
export async function restartInstance(rawInput: RestartInstanceInput): Promise<RestartInstanceResult> {
  const input = parseInput(RestartInstanceInput, rawInput, WorkflowType.restartInstance);
  const status = trackStatus(WorkflowType.restartInstance, 'RESTARTING', { instanceId: input.instanceId });

  await platform.restartInstance(input.instanceId);
  status.set('WAITING_FOR_RUNNING');

  const timeoutMs = input.timeoutSeconds * 1000;
  const maxIntervalMs = input.pollMaxSeconds * 1000;
  const waiter = proxyActivities<Activities>({
    // The activity owns the deadline; these bounds only catch a worker that died mid-wait.
    startToCloseTimeout: timeoutMs + 60_000,
    heartbeatTimeout: 2 * maxIntervalMs + 30_000,
    retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 5 },
  });
  const waited = await waiter.waitForInstanceStatus({
    instanceId: input.instanceId,
    target: 'running',
    timeoutMs,
    initialIntervalMs: input.pollInitialSeconds * 1000,
    maxIntervalMs,
  });
  if (!waited.reached) {
    status.set('TIMED_OUT', { statuses: waited.statuses });
    throw ApplicationFailure.create({
      type: FailureType.DeadlineExceeded,
      nonRetryable: true,
      message: `Instance ${input.instanceId} was not running ${input.timeoutSeconds}s after the restart (statuses seen: ${waited.statuses.join(' → ') || 'none'})`,
      details: [waited],
    });
  }
  status.set('RUNNING', { statuses: waited.statuses });
  return {
    instanceId: input.instanceId,
    statuses: waited.statuses,
    finalStatus: waited.finalStatus,
    polls: waited.polls,
    waitedSeconds: Math.round(waited.waitedMs / 100) / 10,
  };
}
