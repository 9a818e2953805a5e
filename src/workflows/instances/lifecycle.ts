// GPU instance lifecycle workflows: create until running, start until running, stop until exited,
// delete until removed. Each sends its request (retried through any outage within the input's
// timeout), then waits for the target status as restartInstance does (./instance-wait.ts).
import { proxyActivities, setHandler } from '@temporalio/workflow';
import { statusQuery } from '../../api/contract';
import { WorkflowType, type WorkflowTypeName } from '../operations';
import {
  CreateInstanceInput,
  DeleteInstanceInput,
  StartInstanceInput,
  StopInstanceInput,
  type CreateInstanceResult,
  type InstanceLifecycleStatus,
} from './contract';
import type { InstanceWaitResult } from './contract';
import { parseInput } from '../../api/failures';
import type { z } from 'zod';
import type { Activities } from '../../activities/instances/activities';
import { pollUntilStatus, waitSummary, waitTimedOut } from './wait';
import { forUpTo } from '../retry-policies';
import { trackStatus, type StatusTracker } from '../status';
import { summarized } from '../activity-summary';

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
  const created = await summarized(
    platformFor(input.timeoutSeconds).createInstance,
    'create an instance',
  )(input.request);
  status.detail({ instanceId: created.instanceId, alreadyApplied: created.alreadyApplied });
  const waited = await waitFor({ ...input, instanceId: created.instanceId }, 'running', 'create', status);
  return { ...waited, alreadyApplied: created.alreadyApplied };
}

/** The status of a start, stop or delete, with the instance's search attribute. */
const actionStatus = (type: WorkflowTypeName, input: WaitInput) =>
  trackStatus<InstanceLifecycleStatus>(type, 'REQUESTING', { instanceId: input.instanceId });

/** Sends a free action (a repeat is answered as done), then waits for `target`. */
async function requestThenWait(
  input: WaitInput,
  act: 'startInstance' | 'stopInstance' | 'deleteInstance',
  target: string,
  status: StatusTracker<InstanceLifecycleStatus>,
): Promise<InstanceWaitResult> {
  await summarized(
    platformFor(input.timeoutSeconds)[act],
    `${act.replace('Instance', '')} instance ${input.instanceId}`,
  )(input.instanceId);
  return waitFor(input, target, act.replace('Instance', ''), status);
}

/** Starts a stopped instance and waits until it runs. */
export async function startInstance(rawInput: z.input<typeof StartInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(StartInstanceInput, rawInput, WorkflowType.startInstance);
  const status = actionStatus(WorkflowType.startInstance, input);
  setHandler(statusQuery, () => status.current);
  return requestThenWait(input, 'startInstance', 'running', status);
}

/** Stops a running instance and waits until it has exited. */
export async function stopInstance(rawInput: z.input<typeof StopInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(StopInstanceInput, rawInput, WorkflowType.stopInstance);
  const status = actionStatus(WorkflowType.stopInstance, input);
  setHandler(statusQuery, () => status.current);
  return requestThenWait(input, 'stopInstance', 'exited', status);
}

/** Deletes an instance and waits until it is removed. */
export async function deleteInstance(rawInput: z.input<typeof DeleteInstanceInput>): Promise<InstanceWaitResult> {
  const input = parseInput(DeleteInstanceInput, rawInput, WorkflowType.deleteInstance);
  const status = actionStatus(WorkflowType.deleteInstance, input);
  setHandler(statusQuery, () => status.current);
  return requestThenWait(input, 'deleteInstance', 'removed', status);
}
