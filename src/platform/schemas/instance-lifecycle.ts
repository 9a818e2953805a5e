// GPU instance lifecycle: create, list, start, stop and delete. The spec names these operations but
// shows no path or payload; start, stop and delete follow platform-notes (POST /gpu/instance/{start,
// stop,delete} with `{instanceId}`), create and list are this project's choice in the same family
// (docs/platform.md#gpu-instances). Requests are strict and bounded; answers lenient but bounded.
import { z } from 'zod';
import { Cursor } from './common';
import { Instance, InstanceId } from './gpu';

/** The platform's instance names show in its console: one line, bounded like ids. */
const InstanceName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\r\n\t]+$/, { error: 'must be one line without tabs' });
const ProductId = z.string().min(1).max(255);

/** Renewals and subscriptions are paid up front: never more than three years (as renew). */
export const SUBSCRIPTION_MAX_MONTHS = 36;
/** The largest instance the catalog offers is 8 cards. */
const MAX_GPUS = 8;

export const CreateInstanceRequest = z
  .strictObject({
    /** Also what a retried create finds an earlier attempt's instance by (src/activities/instance-lifecycle.ts). */
    name: InstanceName,
    productId: ProductId,
    gpuNum: z.number().int().min(1).max(MAX_GPUS),
    billingMode: z.enum(['subscription', 'payAsYouGo']),
    /** Required for a subscription: the months paid up front. */
    months: z.number().int().gt(0).max(SUBSCRIPTION_MAX_MONTHS).optional(),
    /** The container image, or a template to take it from. */
    imageUrl: z.string().min(1).max(2048).optional(),
    templateId: z.string().min(1).max(255).optional(),
    regionId: z.string().min(1).max(64).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.billingMode === 'subscription' && req.months === undefined) {
      ctx.addIssue({ code: 'custom', path: ['months'], message: 'is required for a subscription instance' });
    }
    if (req.billingMode === 'payAsYouGo' && req.months !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['months'], message: 'is only for a subscription instance' });
    }
  });
export type CreateInstanceRequest = z.input<typeof CreateInstanceRequest>;

export const CreateInstanceResponse = z.looseObject({ instanceId: InstanceId });
export type CreateInstanceResponse = z.infer<typeof CreateInstanceResponse>;

/** Start, stop and delete all take only the id. */
export const InstanceActionRequest = z.strictObject({ instanceId: InstanceId });
export type InstanceActionRequest = z.input<typeof InstanceActionRequest>;

/** The most instances one page may ask for (and hold). */
export const INSTANCE_PAGE_MAX = 100;

export const ListInstancesRequest = z.strictObject({
  limit: z.number().int().min(1).max(INSTANCE_PAGE_MAX).optional(),
  cursor: Cursor.optional(),
  /** Only the instances of this team member (this project's filter name). */
  memberId: z.string().min(1).max(255).optional(),
});
export type ListInstancesRequest = z.input<typeof ListInstancesRequest>;

/** An instance in a list: the get-instance record, and the member who owns it when the platform says. */
export const ListedInstance = Instance.extend({
  id: InstanceId,
  name: z.string().max(255).optional(),
  status: z.string().min(1).max(64),
  memberId: z.string().max(255).optional(),
});
export type ListedInstance = z.infer<typeof ListedInstance>;

/** A GPU list page (`{data, next_cursor, has_more}`, as templates); a page larger than asked is refused. */
export const ListInstancesResponse = z.looseObject({
  data: z.array(ListedInstance).max(INSTANCE_PAGE_MAX),
  next_cursor: z.string().max(1024).default(''),
  has_more: z.boolean().default(false),
});
export type ListInstancesResponse = z.infer<typeof ListInstancesResponse>;
