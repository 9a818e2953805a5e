// The contract of the GPU instance workflows: renew, and create, restart, start, stop or delete, then wait.
import { z } from 'zod';
import { count, defineOperation, notBelow, workflow } from '../contract';
import { CreateInstanceRequest, InstanceId, RenewInstanceRequest } from '../platform/gpu';

export const RenewInstanceInput = RenewInstanceRequest.extend({
  /** Renew only if the instance still expires at this (Unix seconds), so one expiry is never paid twice. */
  expectedEndTime: z.union([z.string().max(32), z.number().int()]).optional(),
}).meta({
  title: 'renewInstance input',
  description: 'Renews a subscription GPU instance for a number of months.',
});
export type RenewInstanceInput = z.input<typeof RenewInstanceInput>;

const EndTime = z.union([z.string(), z.number()]).optional();

export const RenewInstanceResult = z
  .object({
    instanceId: z.string(),
    months: z.number().int(),
    /** The instance's expiry before and after (Unix seconds; -1 for pay-as-you-go). */
    endTimeBefore: EndTime,
    endTimeAfter: EndTime,
    /** True when a retried renew found the first attempt had already been applied (no double renewal). */
    alreadyApplied: z.boolean(),
    /** Set when nothing was renewed: the expiry was no longer `expectedEndTime`. */
    notRenewed: z.string().optional(),
  })
  .meta({ title: 'renewInstance result' });
export type RenewInstanceResult = z.infer<typeof RenewInstanceResult>;

/** How long and how often a workflow waits for an instance's status after acting on it. */
export const INSTANCE_WAIT_FIELDS = {
  timeoutSeconds: z.number().int().min(10).max(86_400).default(900),
  /** First gap between two get-instance polls; doubles up to pollMaxSeconds. */
  pollInitialSeconds: z.number().min(0.1).max(300).default(2),
  pollMaxSeconds: z.number().min(0.1).max(3600).default(30),
};

const pollGapsGrow = notBelow('pollMaxSeconds', 'pollInitialSeconds');

export const InstanceWaitResult = z.object({
  instanceId: z.string(),
  /** Every status seen while waiting, in order, without repeats of the same status in a row. */
  statuses: z.array(z.string()),
  finalStatus: z.string(),
  polls: z.number().int(),
  waitedSeconds: z.number(),
});
export type InstanceWaitResult = z.infer<typeof InstanceWaitResult>;

/** Restart, start, stop or delete an instance, then wait for its target status. */
const instanceAction = (verb: string, description: string) =>
  workflow(
    z
      .strictObject({ instanceId: InstanceId, ...INSTANCE_WAIT_FIELDS })
      .refine(...pollGapsGrow)
      .meta({ title: `${verb}Instance input`, description }),
    InstanceWaitResult.meta({ title: `${verb}Instance result` }),
    (i) => [`${verb} ${i.instanceId}`],
  );
const restartInstance = instanceAction('restart', 'Restarts a GPU instance and waits until it is running again.');

export const RestartInstanceInput = restartInstance.input;
export type RestartInstanceInput = z.input<typeof RestartInstanceInput>;

export type RenewInstanceStatus = 'READING_INSTANCE' | 'RENEWING' | 'RENEWED' | 'EXPIRY_MOVED';

export type RestartInstanceStatus = 'RESTARTING' | 'WAITING_FOR_RUNNING' | 'TIMED_OUT' | 'RUNNING';

export const CreateInstanceInput = z
  .object({
    /** What the platform is asked to create; `name` must be one no live instance has (it finds a retry's instance). */
    request: CreateInstanceRequest,
    ...INSTANCE_WAIT_FIELDS,
    // Creating pulls an image: longer than a restart.
    timeoutSeconds: INSTANCE_WAIT_FIELDS.timeoutSeconds.unwrap().default(1_800),
  })
  .strict()
  .refine(...pollGapsGrow)
  .meta({ title: 'createInstance input', description: 'Creates a GPU instance and waits until it is running.' });
export type CreateInstanceInput = z.input<typeof CreateInstanceInput>;

export const CreateInstanceResult = InstanceWaitResult.extend({
  /** A retried create found the instance an earlier attempt created: created (and paid) once. */
  alreadyApplied: z.boolean(),
}).meta({ title: 'createInstance result' });
export type CreateInstanceResult = z.infer<typeof CreateInstanceResult>;

export type InstanceLifecycleStatus = 'REQUESTING' | 'WAITING' | 'TIMED_OUT' | 'DONE';

export const instances = defineOperation({
  workflows: {
    renewInstance: workflow(RenewInstanceInput, RenewInstanceResult, (i) => [
      `renew ${i.instanceId}`,
      count(i.months, 'month'),
    ]),
    restartInstance,
    createInstance: workflow(CreateInstanceInput, CreateInstanceResult, ({ request: r }) => [
      `create ${r.name}`,
      `${r.gpuNum} × ${r.productId}`,
      r.months ? count(r.months, 'month') : r.billingMode,
    ]),
    startInstance: instanceAction('start', 'Starts a stopped GPU instance and waits until it is running.'),
    stopInstance: instanceAction('stop', 'Stops a running GPU instance and waits until it has exited.'),
    deleteInstance: instanceAction('delete', 'Deletes a GPU instance and waits until it is removed.'),
  },
});
