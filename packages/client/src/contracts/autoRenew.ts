import { z } from 'zod';
import { Amount, defineOperation, member, MemberId, workflow } from '../contract';
import { NumericString } from '../platform/common';
import { SUBSCRIPTION_MAX_MONTHS } from '../platform/gpu';

const HOUR_S = 3_600;
const MAX_BEFORE_SECONDS = 28 * 24 * HOUR_S;

export const AutoRenewInput = z
  .strictObject({
    memberId: MemberId.regex(/^[^\s:]+$/, { error: 'must have no spaces or colons (it is part of workflow ids)' }),
    beforeSeconds: z.number().int().min(60).max(MAX_BEFORE_SECONDS),
    months: z.number().int().gt(0).max(SUBSCRIPTION_MAX_MONTHS).default(1),
    /** Cost of one instance-month in 1/10000 USD; default: the worker's price table (renewInstance.perMonth). */
    costPerMonth: Amount.optional(),
    concurrency: z.number().int().min(1).max(20).default(4),
  })
  .meta({
    title: 'autoRenew input',
    description:
      "Renews a member's subscription GPU instances that expire within a window, budget-gated, once per expiry.",
  });
export type AutoRenewInput = z.input<typeof AutoRenewInput>;
export type ParsedAutoRenewInput = z.output<typeof AutoRenewInput>;

export const AutoRenewResult = z
  .object({
    memberId: z.string(),
    checkedAt: z.string(),
    windowEndsAt: z.string(),
    listed: z.number().int(),
    truncated: z.boolean(),
    /** What one renewal was reserved at, in 1/10000 USD. */
    costPerRenewal: z.number().int(),
    renewed: z.array(
      z.object({
        instanceId: z.string(),
        endTimeBefore: NumericString.optional(),
        endTimeAfter: NumericString.optional(),
        workflowId: z.string(),
      }),
    ),
    skipped: z.array(z.object({ instanceId: z.string(), reason: z.string(), workflowId: z.string().optional() })),
    refusedByBudget: z.array(z.object({ instanceId: z.string(), reason: z.string(), workflowId: z.string() })),
    failed: z.array(
      z.object({ instanceId: z.string(), workflowId: z.string(), failure: z.string(), type: z.string().optional() }),
    ),
  })
  .meta({ title: 'autoRenew result' });
export type AutoRenewResult = z.infer<typeof AutoRenewResult>;

export type AutoRenewStatus = 'PRICING' | 'LISTING' | 'RENEWING' | 'DONE';

export const autoRenewalWorkflowId = (memberId: string, instanceId: string, endTime: string | number): string =>
  `autoRenew:${memberId}:${instanceId}:${String(endTime)}`;

export const autoRenew = defineOperation({
  workflows: {
    autoRenew: workflow(AutoRenewInput, AutoRenewResult, (i) => [
      `auto-renew ${member(i.memberId)}`,
      `what expires within ${Math.round(i.beforeSeconds / 3600)} h`,
    ]),
  },
});
