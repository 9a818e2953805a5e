// GPU instance workflows: renew for months, restart and wait until running.
import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { statusQuery } from '../../api/contract';
import { WorkflowType } from '../operations';
import {
  RenewInstanceInput,
  RestartInstanceInput,
  type RenewInstanceResult,
  type RestartInstanceResult,
  type RenewInstanceStatus,
  type RestartInstanceStatus,
} from './contract';
import { parseInput } from '../../api/failures';
import type { Activities } from '../../activities/instances/activities';
import { pollUntilStatus, waitSummary, waitTimedOut } from './wait';
import { HOUR_MS, untilDeadline } from '../retry-policies';
import { trackStatus } from '../status';
import { summarized } from '../activity-summary';

/** renewInstance's read, renew (once) and read again are retried this long, from its start. */
const RENEW_DEADLINE_MS = 6 * HOUR_MS;

/** The platform's calls, retried through any outage until `ms` after the workflow started. */
const platformFor = (ms: number) => proxyActivities<Activities>(untilDeadline(workflowInfo().startTime.getTime() + ms));

/** Renews a subscription instance. A retried renew never pays twice (see the renewInstance activity). */
export async function renewInstance(rawInput: RenewInstanceInput): Promise<RenewInstanceResult> {
  const input = parseInput(RenewInstanceInput, rawInput, WorkflowType.renewInstance);
  const status = trackStatus<RenewInstanceStatus>(WorkflowType.renewInstance, 'READING_INSTANCE', {
    instanceId: input.instanceId,
  });
  setHandler(statusQuery, () => status.current);
  const platform = platformFor(RENEW_DEADLINE_MS);

  const before = await summarized(platform.getInstance, `read instance ${input.instanceId}`)(input.instanceId);
  // A renewal asked for one expiry (autoRenew's) is done once: if the expiry moved, someone renewed
  // it already.
  if (input.expectedEndTime !== undefined && String(before.endTime) !== String(input.expectedEndTime)) {
    const notRenewed = `the expiry is ${before.endTime} now, not ${input.expectedEndTime}: already renewed`;
    status.set('EXPIRY_MOVED', { endTimeBefore: before.endTime, notRenewed });
    return {
      instanceId: input.instanceId,
      months: input.months,
      endTimeBefore: before.endTime,
      endTimeAfter: before.endTime,
      alreadyApplied: false,
      notRenewed,
    };
  }
  status.set('RENEWING', { endTimeBefore: before.endTime });
  // Costs money. Retried while the first attempt may still be in flight? It cannot be: an attempt
  // outlives the client's HTTP timeout (PLATFORM_ATTEMPT_MS), so the server retries only once the
  // attempt's request has ended; and a retry first waits out the time the platform may still act on
  // that request, watching the expiry, and renews only if the expiry never moved from `endTimeBefore`
  // (src/activities/instances.ts). A request the platform applies later still is the residual risk.
  const { alreadyApplied } = await summarized(
    platform.renewInstance,
    `renew instance ${input.instanceId} for ${input.months} months`,
  )({
    instanceId: input.instanceId,
    months: input.months,
    endTimeBefore: before.endTime,
  });
  const after = await summarized(
    platform.getInstance,
    `read instance ${input.instanceId} after the renewal`,
  )(input.instanceId);
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
  const status = trackStatus<RestartInstanceStatus>(WorkflowType.restartInstance, 'RESTARTING', {
    instanceId: input.instanceId,
  });
  setHandler(statusQuery, () => status.current);

  // Free, and a second restart of a restarting instance does no harm: retried through any outage
  // within the input's timeout, which then bounds the wait for `running` too.
  await summarized(
    platformFor(input.timeoutSeconds * 1000).restartInstance,
    `restart instance ${input.instanceId}`,
  )(input.instanceId);
  status.set('WAITING_FOR_RUNNING');

  const wait = { ...input, target: 'running' };
  const waited = await pollUntilStatus(wait, (statuses) => status.detail({ statuses }));
  if (!waited.reached) {
    status.set('TIMED_OUT', { statuses: waited.statuses });
    throw waitTimedOut(wait, 'restart', waited);
  }
  status.set('RUNNING', { statuses: waited.statuses });
  return waitSummary(input.instanceId, waited);
}
export { createInstance, deleteInstance, startInstance, stopInstance } from './lifecycle';
