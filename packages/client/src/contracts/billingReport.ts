import { z } from 'zod';
import { defineOperation, workflow } from '../contract';
import { BILL_EARLIEST_START, CYCLE_TYPES, Quota } from '../platform/account';

// About three years (157 Hour windows, 36 of the others). Unbounded, an endTime of 2^53 builds windows without end
// (100% CPU, GBs of memory, other workflows' tasks starved on the same worker).
export const BILLING_REPORT_MAX_DAYS = 1_096;
export const BILL_LATEST_TIME = 4_102_444_800;
const DAY = 86_400;
const UnixSeconds = z
  .number()
  .int()
  .max(BILL_LATEST_TIME, { error: 'must be before 2100-01-01 00:00:00 UTC (4102444800)' });
const Filter = z.string().min(1).max(255);

export const BillingReportInput = z
  .strictObject({
    cycleType: z.enum(CYCLE_TYPES),
    startTime: UnixSeconds.min(BILL_EARLIEST_START, {
      error: 'must be at or after 2026-01-01 00:00:00 UTC (1767225600)',
    }),
    endTime: UnixSeconds,
    category: Filter.optional(),
    productName: Filter.optional(),
    includeQuotas: z.boolean().default(false),
    maxConcurrency: z.number().int().min(1).max(16).default(4),
  })
  .refine((i) => i.endTime > i.startTime, { path: ['endTime'], error: 'must be greater than startTime' })
  .refine((i) => i.endTime - i.startTime <= BILLING_REPORT_MAX_DAYS * DAY, {
    path: ['endTime'],
    error: `must be at most ${BILLING_REPORT_MAX_DAYS} days after startTime (run longer ranges as several reports)`,
  })
  .meta({
    title: 'billingReport input',
    description:
      'Totals of the API key bill list over any range: split into windows the bill list accepts (7 days for Hour, ' +
      '31 otherwise), fetched with bounded concurrency, summed per product, category and API key, with a CSV.',
  });
export type BillingReportInput = z.input<typeof BillingReportInput>;

export const BillWindow = z.object({ startTime: z.number().int(), endTime: z.number().int() });
export type BillWindow = z.infer<typeof BillWindow>;

export const BillingTotal = z.object({
  key: z.string(),
  amount: z.number().int(),
  usd: z.string(),
  bills: z.number().int(),
});
export type BillingTotal = z.infer<typeof BillingTotal>;

export const BillingReportResult = z
  .object({
    cycleType: z.enum(CYCLE_TYPES),
    startTime: z.number().int(),
    endTime: z.number().int(),
    windows: z.array(BillWindow),
    bills: z.number().int(),
    total: z.object({ amount: z.number().int(), usd: z.string() }),
    byProduct: z.array(BillingTotal),
    byCategory: z.array(BillingTotal),
    byApiKey: z.array(BillingTotal),
    csv: z.object({ uri: z.string(), bytes: z.number().int(), sha256: z.string(), rows: z.number().int() }),
    quotas: z.array(Quota).optional(),
  })
  .meta({ title: 'billingReport result' });
export type BillingReportResult = z.infer<typeof BillingReportResult>;

export type BillingReportStatus = 'FETCHING_BILLS' | 'REPORTED';

const day = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

export const billingReport = defineOperation({
  workflows: {
    billingReport: workflow(BillingReportInput, BillingReportResult, (i) => [
      `${i.cycleType} bills`,
      `${day(i.startTime)} to ${day(i.endTime)}`,
    ]),
  },
});
