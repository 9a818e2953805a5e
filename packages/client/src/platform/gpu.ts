// GPU compute: templates, products and instances (spec "List templates", "List products",
// "Renew instance", "Restart instance").
import { z } from 'zod';
import { CommaList, Cursor } from './common';

// ── Templates ──────────────────────────────────────────────────────────────
export const ListTemplatesRequest = z.strictObject({
  limit: z.number().int().min(0).optional(),
  cursor: Cursor.optional(),
  name: z.string().max(255).optional(),
  type: z.string().optional(),
  visibilities: CommaList.optional(),
  member_ids: CommaList.pipe(z.string().max(255)).optional(),
  is_my_community: z.boolean().optional(),
});
export type ListTemplatesRequest = z.input<typeof ListTemplatesRequest>;

/** A template: only its id is read; the rest is kept as the platform sends it (docs/platform.md). */
export const Template = z.looseObject({ id: z.string() });

/** A GPU list page, `{data, next_cursor, has_more}`, as templates and instances are listed. */
const gpuPage = <T extends z.ZodType>(data: z.ZodArray<T>) =>
  z.looseObject({ data, next_cursor: Cursor.default(''), has_more: z.boolean().default(false) });

export const ListTemplatesResponse = gpuPage(z.array(Template));

// ── Products ───────────────────────────────────────────────────────────────
const PRODUCT_TYPES = ['gpu', 'cpu'] as const;
const PRODUCT_CATEGORIES = ['serverless', 'instance'] as const;
const BILLING_METHODS = ['postpaid', 'prepaid', 'spot'] as const;

/** The spec lists the filters in order but not their query names: see PRODUCT_FILTER_PARAMS. */
export const ListProductsRequest = z.strictObject({
  productType: z.enum(PRODUCT_TYPES).optional(),
  category: z.enum(PRODUCT_CATEGORIES).optional(),
  cpuCores: z.number().int().min(0).optional(),
  memoryGb: z.number().int().min(0).optional(),
  rootfsGb: z.number().int().min(0).optional(),
  billingMethod: z.enum(BILLING_METHODS).optional(),
  regionIds: CommaList.optional(),
  limit: z.number().int().min(0).optional(),
  cursor: Cursor.optional(),
});
export type ListProductsRequest = z.input<typeof ListProductsRequest>;

/** Query parameter names of the product filters (not shown in the spec: this project's choice). */
export const PRODUCT_FILTER_PARAMS = {
  productType: 'product_type',
  category: 'category',
  cpuCores: 'cpu_num',
  memoryGb: 'memory_gb',
  rootfsGb: 'rootfs_gb',
  billingMethod: 'billing_method',
  regionIds: 'region_ids',
  limit: 'limit',
  cursor: 'cursor',
} as const satisfies Record<keyof ListProductsRequest, string>;

/** A product: the fields its filters select by are typed; the rest is kept as the platform sends it. */
export const Product = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  category: z.string().optional(),
  region_ids: z.array(z.string()).optional(),
  billing_methods: z.array(z.string()).optional(),
});

/** `{data}`; the pagination fields are not shown in the spec, so next_cursor/has_more are optional. */
export const ListProductsResponse = z.looseObject({
  data: z.array(Product),
  next_cursor: z.string().optional(),
  has_more: z.boolean().optional(),
});

// ── Instances ──────────────────────────────────────────────────────────────
// Only renew and restart are in the spec; the other paths and payloads are docs/platform.md#gpu-instances.
// Requests are strict and bounded; answers lenient but bounded.
export const InstanceId = z.string().min(1).max(255);

/** Paid up front, so a typo (120 for 12) must not go through: prepaid terms never exceed three years. */
export const SUBSCRIPTION_MAX_MONTHS = 36;
const Months = z.number().int().gt(0).max(SUBSCRIPTION_MAX_MONTHS);

export const RenewInstanceRequest = z.strictObject({ instanceId: InstanceId, months: Months });
export type RenewInstanceRequest = z.input<typeof RenewInstanceRequest>;
/** The wire body of renew: the id travels in the path. */
export const RenewInstanceBody = RenewInstanceRequest.pick({ months: true });

/** Get, restart, start, stop and delete take only the id. */
export const InstanceActionRequest = z.strictObject({ instanceId: InstanceId });

export const Instance = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  status: z.string(),
  billingMode: z.string().optional(),
  /** Expiry (Unix seconds, as a string or number) for a subscription; -1 for pay-as-you-go. */
  endTime: z.union([z.string(), z.number()]).optional(),
  statusError: z.looseObject({ state: z.string().optional(), message: z.string().optional() }).nullish(),
});
export type Instance = z.infer<typeof Instance>;

/** The largest instance the catalog offers is 8 cards. */
const MAX_GPUS = 8;

export const CreateInstanceRequest = z
  .strictObject({
    /** One line, bounded like ids: a retried create finds an earlier attempt's instance by it. */
    name: InstanceId.regex(/^[^\r\n\t]+$/, { error: 'must be one line without tabs' }),
    productId: z.string().min(1).max(255),
    gpuNum: z.number().int().min(1).max(MAX_GPUS),
    billingMode: z.enum(['subscription', 'payAsYouGo']),
    /** Required for a subscription: the months paid up front. */
    months: Months.optional(),
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

/** The most instances one page may ask for (and hold). */
const INSTANCE_PAGE_MAX = 100;

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

/** A page larger than asked is refused. */
export const ListInstancesResponse = gpuPage(z.array(ListedInstance).max(INSTANCE_PAGE_MAX));
