// GPU instance lifecycle workflows: create until running, start until running, stop until exited,
// delete until removed. Each sends its request (retried through any outage within the input's
// timeout), then waits for the target status as restartInstance does (./instance-wait.ts).
import { proxyActivities, setHandler } from '@temporalio/workflow';
import { statusQuery, WorkflowType } from '../api/names';
import {
  CreateInstanceInput,
  DeleteInstanceInput,
  StartInstanceInput,
  StopInstanceInput,
  type CreateInstanceResult,
  type InstanceLifecycleStatus,
} from '../api/schemas/instance-lifecycle';
import type { InstanceWaitResult } from '../api/schemas/instances';
import { parseInput } from '../api/validate';
import type { z } from 'zod';
import type { Activities } from '../activities';
import { pollUntilStatus, waitSummary, waitTimedOut } from './instance-wait';
import { forUpTo } from './retry-policies';
import { trackStatus, type StatusTracker } from './status';

/** The platform's calls, retried through any outage for up to `seconds` from now. */
const platformFor = (seconds: number) => proxyActivities<Activities>(forUpTo(seconds * 1000));

type WaitInput = z.output<typeof StartInstanceInput>;

/** Waits for `target`, or fails as DeadlineExceeded naming the statuses seen. */
async function waitFor(
  input: WaitInput,
  target: string,
  what: string,
  status: StatusTracker<InstanceLifecycleStatus>,
): Promise<InstanceWaitResult> {
  status.set('WAITING', { target });
  const wait = { ...input, target };
  const waited = await pollUntilStatus(wait, (statuses) => status.detail({ statuses }));
  if (!waited.reached) {
    status.set('TIMED_OUT', { statuses: waited.statuses });
    throw waitTimedOut(wait, what, waited);
  }
  status.set('DONE', { statuses: waited.statuses });
  return waitSummary(input.instanceId, waited);
}

/**
 * Creates an instance and waits until it runs. A subscription is paid at create: a retried create
 * finds the instance an earlier attempt made by its name, and does not create it again (see the
 * createInstance activity).
 */
export async function createInstance(rawInput: CreateInstanceInput): Promise<CreateInstanceResult> {
  const input = parseInput(CreateInstanceInput, rawInput, WorkflowType.createInstance);
  const status = trackStatus<InstanceLifecycleStatus>(WorkflowType.createInstance, 'REQUESTING');
  setHandler(statusQuery, () => status.current);

  // Retried while the first attempt may still be in flight? A retry first waits out the time the
  // platform may still act on an earlier request, looking for the name, and creates only if it never
  // shows up (src/activities/in-flight.ts). An instance the platform creates later still is the residual risk.
  const created = await platformFor(input.timeoutSeconds).createInstance(input.request);
  status.detail({ instanceId: created.instanceId, alreadyApplied: created.alreadyApplied });
  const waited = await waitFor({ ...input, instanceId: created.instanceId }, 'running', 'create', status);
  return { ...waited, alreadyApplied: created.alreadyApplied };
}

/** Starts a stopped instance and waits until it runs. Free, and a repeat is answered as done. */
export async function startInstance(rawInput: z.input<typeof StartInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(StartInstanceInput, rawInput, WorkflowType.startInstance);
  const status = trackStatus<InstanceLifecycleStatus>(WorkflowType.startInstance, 'REQUESTING', {
    instanceId: input.instanceId,
  });
  setHandler(statusQuery, () => status.current);
  await platformFor(input.timeoutSeconds).startInstance(input.instanceId);
  return waitFor(input, 'running', 'start', status);
}

/** Stops a running instance and waits until it has exited. */
export async function stopInstance(rawInput: z.input<typeof StopInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(StopInstanceInput, rawInput, WorkflowType.stopInstance);
  const status = trackStatus<InstanceLifecycleStatus>(WorkflowType.stopInstance, 'REQUESTING', {
    instanceId: input.instanceId,
  });
  setHandler(statusQuery, () => status.current);
  await platformFor(input.timeoutSeconds).stopInstance(input.instanceId);
  return waitFor(input, 'exited', 'stop', status);
}

/** Deletes an instance and waits until it is removed. */
export async function deleteInstance(rawInput: z.input<typeof DeleteInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(DeleteInstanceInput, rawInput, WorkflowType.deleteInstance);
  const status = trackStatus<InstanceLifecycleStatus>(WorkflowType.deleteInstance, 'REQUESTING', {
    instanceId: input.instanceId,
  });
  setHandler(statusQuery, () => status.current);
  await platformFor(input.timeoutSeconds).deleteInstance(input.instanceId);
  return waitFor(input, 'removed', 'delete', status);
}
