import { z } from 'zod';
import { CommaList, Cursor, NumericString } from './common';

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

export const Template = z.looseObject({ id: z.string() });

const gpuPage = <T extends z.ZodType>(data: z.ZodArray<T>) =>
  z.looseObject({ data, next_cursor: Cursor.default(''), has_more: z.boolean().default(false) });

export const ListTemplatesResponse = gpuPage(z.array(Template));

const PRODUCT_TYPES = ['gpu', 'cpu'] as const;
const PRODUCT_CATEGORIES = ['serverless', 'instance'] as const;
const BILLING_METHODS = ['postpaid', 'prepaid', 'spot'] as const;

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

export const Product = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  category: z.string().optional(),
  region_ids: z.array(z.string()).optional(),
  billing_methods: z.array(z.string()).optional(),
});

export const ListProductsResponse = z.looseObject({
  data: z.array(Product),
  next_cursor: z.string().optional(),
  has_more: z.boolean().optional(),
});

export const InstanceId = z.string().min(1).max(255);

/** Paid up front, so a typo (120 for 12) must not go through: prepaid terms never exceed three years. */
export const SUBSCRIPTION_MAX_MONTHS = 36;
const Months = z.number().int().gt(0).max(SUBSCRIPTION_MAX_MONTHS);

export const RenewInstanceRequest = z.strictObject({ instanceId: InstanceId, months: Months });
export type RenewInstanceRequest = z.input<typeof RenewInstanceRequest>;
export const RenewInstanceBody = RenewInstanceRequest.pick({ months: true });

export const InstanceActionRequest = z.strictObject({ instanceId: InstanceId });

export const Instance = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  status: z.string(),
  billingMode: z.string().optional(),
  endTime: NumericString.optional(),
  statusError: z.looseObject({ state: z.string().optional(), message: z.string().optional() }).nullish(),
});
export type Instance = z.infer<typeof Instance>;

const MAX_GPUS = 8;

export const CreateInstanceRequest = z
  .strictObject({
    name: InstanceId.regex(/^[^\r\n\t]+$/, { error: 'must be one line without tabs' }),
    productId: z.string().min(1).max(255),
    gpuNum: z.number().int().min(1).max(MAX_GPUS),
    billingMode: z.enum(['subscription', 'payAsYouGo']),
    months: Months.optional(),
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

const INSTANCE_PAGE_MAX = 100;

export const ListInstancesRequest = z.strictObject({
  limit: z.number().int().min(1).max(INSTANCE_PAGE_MAX).optional(),
  cursor: Cursor.optional(),
  memberId: z.string().min(1).max(255).optional(),
});
export type ListInstancesRequest = z.input<typeof ListInstancesRequest>;

export const ListedInstance = Instance.extend({
  id: InstanceId,
  name: z.string().max(255).optional(),
  status: z.string().min(1).max(64),
  memberId: z.string().max(255).optional(),
});
export type ListedInstance = z.infer<typeof ListedInstance>;

export const ListInstancesResponse = gpuPage(z.array(ListedInstance).max(INSTANCE_PAGE_MAX));
