import { z } from 'zod';
import { count, defineOperation, notBelow, workflow } from '../contract';
import { NumericString } from '../platform/common';
import { CreateInstanceRequest, InstanceId, RenewInstanceRequest } from '../platform/gpu';

export const RenewInstanceInput = RenewInstanceRequest.extend({
  /** Renew only if the instance still expires at this (Unix seconds), so one expiry is never paid twice. */
  expectedEndTime: z.union([z.string().max(32), z.number().int()]).optional(),
}).meta({
  title: 'renewInstance input',
  description: 'Renews a subscription GPU instance for a number of months.',
});
export type RenewInstanceInput = z.input<typeof RenewInstanceInput>;

export const RenewInstanceResult = z
  .object({
    instanceId: z.string(),
    months: z.number().int(),
    /** The instance's expiry before and after (Unix seconds; -1 for pay-as-you-go). */
    endTimeBefore: NumericString.optional(),
    endTimeAfter: NumericString.optional(),
    alreadyApplied: z.boolean(),
    notRenewed: z.string().optional(),
  })
  .meta({ title: 'renewInstance result' });
export type RenewInstanceResult = z.infer<typeof RenewInstanceResult>;

export const INSTANCE_WAIT_FIELDS = {
  timeoutSeconds: z.number().int().min(10).max(86_400).default(900),
  pollInitialSeconds: z.number().min(0.1).max(300).default(2),
  pollMaxSeconds: z.number().min(0.1).max(3600).default(30),
};

const pollGapsGrow = notBelow('pollMaxSeconds', 'pollInitialSeconds');

export const InstanceWaitResult = z.object({
  instanceId: z.string(),
  statuses: z.array(z.string()),
  finalStatus: z.string(),
  polls: z.number().int(),
  waitedSeconds: z.number(),
});
export type InstanceWaitResult = z.infer<typeof InstanceWaitResult>;

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
