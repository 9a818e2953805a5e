import { z } from 'zod';
import { NumericString } from './common';

export const CheckMemberBudgetRequest = z.strictObject({
  member_id: z.string().min(1),
  /** int64 in 1/10000 USD. */
  cost: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
export const CheckMemberBudgetResponse = z.looseObject({ enough: z.boolean() });

export const CYCLE_TYPES = ['Hour', 'Day', 'Week', 'Month'] as const;
export type CycleType = (typeof CYCLE_TYPES)[number];
export const BILL_EARLIEST_START = 1_767_225_600;
export const BILL_MAX_RANGE_DAYS: Record<CycleType, number> = { Hour: 7, Day: 31, Week: 31, Month: 31 };
const DAY = 86_400;

/** The spec's own wording of the range error, returned verbatim by the platform. */
export const billRangeMessage = (cycleType: CycleType): string =>
  `time range must not exceed ${BILL_MAX_RANGE_DAYS[cycleType]} days for cycleType "${cycleType}"`;

export const BillListRequest = z
  .strictObject({
    cycleType: z.enum(CYCLE_TYPES),
    category: z.string().min(1).optional(),
    /** Fuzzy product-name filter; its query name is `productName` on the live platform (configurable). */
    productName: z.string().min(1).optional(),
    startTime: z
      .number()
      .int()
      .min(BILL_EARLIEST_START, { error: 'must be at or after 2026-01-01 00:00:00 UTC (1767225600)' }),
    endTime: z.number().int(),
  })
  .superRefine((req, ctx) => {
    if (req.endTime <= req.startTime) {
      ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'must be greater than startTime' });
    } else if (req.endTime - req.startTime > BILL_MAX_RANGE_DAYS[req.cycleType] * DAY) {
      ctx.addIssue({
        code: 'custom',
        path: ['endTime'],
        message: billRangeMessage(req.cycleType),
        params: { verbatim: true },
      });
    }
  });
export type BillListRequest = z.input<typeof BillListRequest>;

/**
 * Consecutive windows covering [startTime, endTime] (Unix seconds, inclusive, as the bill list reads them),
 * each within the cycle type's limit; no second is in two windows, so no charge is counted twice.
 */
export function billWindows(cycleType: CycleType, startTime: number, endTime: number) {
  const span = BILL_MAX_RANGE_DAYS[cycleType] * DAY;
  const windows: Array<{ startTime: number; endTime: number }> = [];
  for (let s = startTime; s <= endTime; s += span) {
    windows.push({ startTime: s, endTime: Math.min(s + span - 1, endTime) });
  }
  return windows;
}

export const Bill = z.looseObject({
  startTime: NumericString,
  endTime: NumericString,
  productName: z.string(),
  category: z.string(),
  productId: z.string().optional(),
  ownerID: z.string().optional(),
  apikeyName: z.string().optional(),
  apikeyMask: z.string().optional(),
  amount: NumericString,
});
export type Bill = z.infer<typeof Bill>;

export const BillListResponse = z.looseObject({ bills: z.array(Bill) });

export const QuotaListRequest = z.strictObject({
  modal: z.string().min(1).optional(),
  quotaType: z.string().min(1).optional(),
  productType: z.string().min(1).optional(),
  quotaObject: z.string().min(1).optional(),
});

export const Quota = z.looseObject({
  modal: z.string().optional(),
  quotaObject: z.string(),
  quotaType: z.string(),
  productType: z.string().optional(),
  currentQuota: z.number().int(),
  defaultQuota: z.number().int().optional(),
  adjustable: z.boolean().optional(),
  quotaItems: z.array(z.looseObject({ tier: z.string(), quota: z.number().int() })).optional(),
});
export type Quota = z.infer<typeof Quota>;

export const QuotaListResponse = z.looseObject({ data: z.array(Quota), total: z.number().int() });

export const ListModelsResponse = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().max(256) })).max(10_000),
});

export const BalanceDetail = z.looseObject({ availableBalance: NumericString.optional() });
