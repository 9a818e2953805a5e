// Inputs and results of the lifecycle workflows: create (until running), start (until running), stop
// (until exited) and delete (until removed). Each waits as restartInstance does.
import { z } from 'zod';
import { CreateInstanceRequest } from '../../platform/schemas/instance-lifecycle';
import { INSTANCE_WAIT_FIELDS, instanceActionInput, InstanceWaitResult, pollGapsGrow } from './instances';

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

export const StartInstanceInput = instanceActionInput(
  'startInstance input',
  'Starts a stopped GPU instance and waits until it is running.',
);
export type StartInstanceInput = z.input<typeof StartInstanceInput>;
export const StopInstanceInput = instanceActionInput(
  'stopInstance input',
  'Stops a running GPU instance and waits until it has exited.',
);
export type StopInstanceInput = z.input<typeof StopInstanceInput>;
export const DeleteInstanceInput = instanceActionInput(
  'deleteInstance input',
  'Deletes a GPU instance and waits until it is removed.',
);
export type DeleteInstanceInput = z.input<typeof DeleteInstanceInput>;

export const StartInstanceResult = InstanceWaitResult.meta({ title: 'startInstance result' });
export const StopInstanceResult = InstanceWaitResult.meta({ title: 'stopInstance result' });
export const DeleteInstanceResult = InstanceWaitResult.meta({ title: 'deleteInstance result' });

/** The lifecycle workflows' business status: acting (the request), waiting, then reached or timed out. */
export const INSTANCE_LIFECYCLE_STATUSES = ['REQUESTING', 'WAITING', 'TIMED_OUT', 'DONE'] as const;
export type InstanceLifecycleStatus = (typeof INSTANCE_LIFECYCLE_STATUSES)[number];
