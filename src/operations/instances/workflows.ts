import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import type { z } from 'zod';
import {
  CreateInstanceInput,
  type CreateInstanceResult,
  FailureType,
  type InstanceLifecycleStatus,
  instances,
  type InstanceWaitResult,
  parseInput,
  RenewInstanceInput,
  type RenewInstanceResult,
  type RenewInstanceStatus,
  RestartInstanceInput,
  type RestartInstanceStatus,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, InstanceObservation } from './activities';
import { paidCall, summarized, WAITING } from '../../workflows/activity-summary';
import { forUpTo, HOUR_MS, pollTimedOut, retryAsPollOptions, untilAfterStart } from '../../workflows/retry-policies';
import { trackStatus, type StatusTracker } from '../../workflows/status';

const RENEW_DEADLINE_MS = 6 * HOUR_MS;

export async function renewInstance(rawInput: RenewInstanceInput): Promise<RenewInstanceResult> {
  const input = parseInput(RenewInstanceInput, rawInput, WorkflowType.renewInstance);
  const { instanceId, months } = input;
  const status = trackStatus<RenewInstanceStatus>(WorkflowType.renewInstance, 'READING_INSTANCE', { instanceId });
  setHandler(statusQuery, () => status.current);
  const platform = proxyActivities<Activities>(untilAfterStart(RENEW_DEADLINE_MS));
  const before = await summarized(platform.getInstance, `read instance ${instanceId}`)(instanceId);
  const endTimeBefore = before.endTime;
  // A renewal asked for one expiry (autoRenew's) is done once: if the expiry moved, someone renewed it.
  if (input.expectedEndTime !== undefined && String(endTimeBefore) !== String(input.expectedEndTime)) {
    const notRenewed = `the expiry is ${endTimeBefore} now, not ${input.expectedEndTime}: already renewed`;
    status.set('EXPIRY_MOVED', { endTimeBefore, notRenewed });
    return { instanceId, months, endTimeBefore, endTimeAfter: endTimeBefore, alreadyApplied: false, notRenewed };
  }
  status.set('RENEWING', { endTimeBefore });
  const renew = paidCall(platform.renewInstance, `renew instance ${instanceId} for ${months} months`);
  const renewed = await renew({ instanceId, months, endTimeBefore });
  const { alreadyApplied, resumed } = renewed;
  const after = await summarized(platform.getInstance, `read instance ${instanceId} after the renewal`)(instanceId);
  status.set('RENEWED', { endTimeAfter: after.endTime, ...(resumed && { resumedFrom: resumed.runId }) });
  const result = { instanceId, months, endTimeBefore: renewed.endTimeBefore ?? endTimeBefore, alreadyApplied };
  return { ...result, endTimeAfter: after.endTime, ...(resumed && { resumed: [resumed] }) };
}

export async function createInstance(rawInput: CreateInstanceInput): Promise<CreateInstanceResult> {
  const input = parseInput(CreateInstanceInput, rawInput, WorkflowType.createInstance);
  const status = trackStatus<InstanceLifecycleStatus>(WorkflowType.createInstance, 'REQUESTING');
  setHandler(statusQuery, () => status.current);
  const create = proxyActivities<Activities>(forUpTo(input.timeoutSeconds * 1000)).createInstance;
  const created = await paidCall(create, 'create an instance')(input.request);
  const { instanceId, alreadyApplied, resumed } = created;
  status.detail({ instanceId, alreadyApplied, ...(resumed && { resumedFrom: resumed.runId }) });
  const waited = await waitFor({ ...input, instanceId }, 'running', 'create', status);
  return { ...waited, alreadyApplied, ...(resumed && { resumed: [resumed] }) };
}

/** Requesting, waiting, timed out and reached. */
type Steps<S extends string> = [S, S, S, S];
const LIFECYCLE: Steps<InstanceLifecycleStatus> = ['REQUESTING', 'WAITING', 'TIMED_OUT', 'DONE'];
const RESTART: Steps<RestartInstanceStatus> = ['RESTARTING', 'WAITING_FOR_RUNNING', 'TIMED_OUT', 'RUNNING'];

export const restartInstance = requestThenWait('restartInstance', 'running', RESTART);
export const startInstance = requestThenWait('startInstance', 'running', LIFECYCLE);
export const stopInstance = requestThenWait('stopInstance', 'exited', LIFECYCLE);
export const deleteInstance = requestThenWait('deleteInstance', 'removed', LIFECYCLE);

type WaitInput = z.output<typeof RestartInstanceInput>;

// A free action: a repeat is answered as done, and a second restart of a restarting instance does no harm.
function requestThenWait<S extends string>(
  type: 'restartInstance' | 'startInstance' | 'stopInstance' | 'deleteInstance',
  target: string,
  [requesting, ...waiting]: Steps<S>,
) {
  return async (rawInput: RestartInstanceInput): Promise<InstanceWaitResult> => {
    const input: WaitInput = parseInput(instances.workflows[type].input, rawInput, type);
    const status = trackStatus<S>(type, requesting, { instanceId: input.instanceId });
    setHandler(statusQuery, () => status.current);
    const what = type.replace('Instance', '');
    const request = proxyActivities<Activities>(forUpTo(input.timeoutSeconds * 1000))[type];
    await summarized(request, `${what} instance ${input.instanceId}`)(input.instanceId);
    return waitFor(input, target, what, status, waiting);
  };
}

// The poll activity comes back only when the status changes, so a wait of any length is a few activities.
async function waitFor<S extends string>(
  input: WaitInput,
  target: string,
  what: string,
  status: StatusTracker<S>,
  [waiting, timedOut, reachedStatus] = ['WAITING', 'TIMED_OUT', 'DONE'] as [S, S, S],
): Promise<InstanceWaitResult> {
  status.set(waiting, { target });
  // Workflow time: the deadline is the same on every replay.
  const startedAt = Date.now();
  const deadlineAt = startedAt + input.timeoutSeconds * 1000;
  let since: InstanceObservation | undefined;
  let reached = false;
  for (;;) {
    const { pollInstanceStatus } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
    let checkpoint;
    try {
      checkpoint = await summarized(
        pollInstanceStatus,
        `instance ${input.instanceId} to be ${target}: ${WAITING}`,
      )({
        instanceId: input.instanceId,
        target,
        deadlineAt,
        initialIntervalMs: input.pollInitialSeconds * 1000,
        maxIntervalMs: input.pollMaxSeconds * 1000,
        since,
      });
    } catch (err) {
      // The server's bound ran out (a lost worker, or a retry that would land past it).
      if (pollTimedOut(err)) break;
      throw err;
    }
    since = checkpoint.observation;
    if (checkpoint.outcome !== 'changed') {
      reached = checkpoint.outcome === 'reached';
      break;
    }
    status.detail({ statuses: since.statuses });
  }
  const statuses = since?.statuses ?? [];
  const waited = {
    reached,
    statuses,
    finalStatus: statuses[statuses.length - 1] ?? 'unknown',
    polls: since?.polls ?? 0,
    waitedMs: Date.now() - startedAt,
  };
  status.set(reached ? reachedStatus : timedOut, { statuses });
  if (!reached) {
    throw ApplicationFailure.create({
      type: FailureType.DeadlineExceeded,
      nonRetryable: true,
      message: `Instance ${input.instanceId} was not ${target} ${input.timeoutSeconds}s after the ${what} (statuses seen: ${statuses.join(' → ') || 'none'})`,
      details: [waited],
    });
  }
  const { finalStatus, polls, waitedMs } = waited;
  return { instanceId: input.instanceId, statuses, finalStatus, polls, waitedSeconds: Math.round(waitedMs / 100) / 10 };
}

for (const workflow of [renewInstance, createInstance, restartInstance, startInstance, stopInstance, deleteInstance]) {
  setVersioningBehavior('PINNED', workflow);
}
