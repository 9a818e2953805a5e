// The contract of autoRenew: renew a member's instances that expire within a window (src/operations/autoRenew/README.md).
import { z } from 'zod';
import { Amount, defineOperation, member, MemberId, workflow } from '../contract';
import { SUBSCRIPTION_MAX_MONTHS } from '../platform/gpu';

const HOUR_S = 3_600;
/** A window longer than a renewal's month could renew the same instance again at once. */
const MAX_BEFORE_SECONDS = 28 * 24 * HOUR_S;

export const AutoRenewInput = z
  .strictObject({
    /** The team member whose instances are renewed and whose budget pays. */
    memberId: MemberId.regex(/^[^\s:]+$/, { error: 'must have no spaces or colons (it is part of workflow ids)' }),
    /** Renew what expires within this many seconds from the run (72 h = 259200). */
    beforeSeconds: z.number().int().min(60).max(MAX_BEFORE_SECONDS),
    months: z.number().int().gt(0).max(SUBSCRIPTION_MAX_MONTHS).default(1),
    /** Cost of one instance-month in 1/10000 USD; default: the worker's price table (renewInstance.perMonth). */
    costPerMonth: Amount.optional(),
    /** Renewals run at once, at most. */
    concurrency: z.number().int().min(1).max(20).default(4),
  })
  .meta({
    title: 'autoRenew input',
    description:
      "Renews a member's subscription GPU instances that expire within a window, budget-gated, once per expiry.",
  });
export type AutoRenewInput = z.input<typeof AutoRenewInput>;
export type ParsedAutoRenewInput = z.output<typeof AutoRenewInput>;

const EndTime = z.union([z.string(), z.number()]);

export const AutoRenewResult = z
  .object({
    memberId: z.string(),
    /** When the run looked, and the end of its window (ISO 8601). */
    checkedAt: z.string(),
    windowEndsAt: z.string(),
    /** Instances the list returned; `truncated` when there were more than it reads. */
    listed: z.number().int(),
    truncated: z.boolean(),
    /** What one renewal was reserved at, in 1/10000 USD. */
    costPerRenewal: z.number().int(),
    renewed: z.array(
      z.object({
        instanceId: z.string(),
        endTimeBefore: EndTime.optional(),
        endTimeAfter: EndTime.optional(),
        /** The budgetGatedJob that renewed it: its id is derived from the instance and the expiry. */
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

/** One id per instance and expiry, so two overlapping runs cannot both start the renewal. */
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
