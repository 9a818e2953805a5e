// One activity, so only totals reach the history (a week of hourly bills can exceed 2 MB).
import { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import type { Bill, BillingReportResult, BillingTotal, BillWindow, CycleType } from '@platform-ops/client';
import { parseTenThousandths, usdText } from '../../platform/money';
import { safeSegment } from '../../artifacts';
import { mapBounded } from '../../shared/lanes';
import type { ActivityDeps } from '../activities-deps';

interface BuildBillingReportInput {
  reportId: string;
  cycleType: CycleType;
  windows: BillWindow[];
  category?: string;
  productName?: string;
  maxConcurrency: number;
}

type BuildBillingReportResult = Pick<
  BillingReportResult,
  'bills' | 'total' | 'byProduct' | 'byCategory' | 'byApiKey' | 'csv'
>;

const CSV_COLUMNS = [
  'startTime',
  'endTime',
  'productId',
  'productName',
  'category',
  'apikeyName',
  'apikeyMask',
  'amount',
  'usd',
] as const;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

// Text that would run as a spreadsheet formula gets a leading apostrophe, as OWASP advises; numbers stay numbers.
export function csvCell(value: string | number | undefined): string {
  let s = value === undefined ? '' : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function totals(bills: Bill[], keyOf: (b: Bill) => string): BillingTotal[] {
  const sums = new Map<string, { amount: number; bills: number }>();
  for (const b of bills) {
    const key = keyOf(b);
    const t = sums.get(key) ?? { amount: 0, bills: 0 };
    t.amount += parseTenThousandths(b.amount);
    t.bills++;
    sums.set(key, t);
  }
  return [...sums.entries()]
    .map(([key, t]) => ({ key, amount: t.amount, usd: usdText(t.amount), bills: t.bills }))
    .sort((a, b) => b.amount - a.amount || a.key.localeCompare(b.key));
}

export function createBillingActivities({ platform, artifacts: store }: ActivityDeps) {
  return {
    async buildBillingReport(input: BuildBillingReportInput): Promise<BuildBillingReportResult> {
      const ctx = Context.current();
      let done = 0;
      const perWindow = await mapBounded(input.windows, input.maxConcurrency, async (w) => {
        const res = await platform.listBills(
          { cycleType: input.cycleType, ...w, category: input.category, productName: input.productName },
          { signal: ctx.cancellationSignal },
        );
        ctx.heartbeat({ windowsDone: ++done, windows: input.windows.length });
        return res.bills;
      });
      const bills = perWindow.flat();
      const rows = bills.map((b) => {
        const amount = parseTenThousandths(b.amount);
        const cells = { ...b, amount, usd: usdText(amount) };
        return CSV_COLUMNS.map((c) => csvCell(cells[c])).join(',');
      });
      const csvText = `${[CSV_COLUMNS.join(','), ...rows].join('\n')}\n`;
      const stored = await store.put(
        `billing/${safeSegment(input.reportId)}/bills.csv`,
        Readable.from([Buffer.from(csvText, 'utf8')]),
        { contentType: 'text/csv', signal: ctx.cancellationSignal },
      );
      const total = bills.reduce((sum, b) => sum + parseTenThousandths(b.amount), 0);
      return {
        bills: bills.length,
        total: { amount: total, usd: usdText(total) },
        byProduct: totals(bills, (b) => b.productName),
        byCategory: totals(bills, (b) => b.category),
        byApiKey: totals(bills, (b) => b.apikeyName ?? b.apikeyMask ?? b.ownerID ?? 'unknown'),
        csv: { uri: stored.uri, bytes: stored.bytes, sha256: stored.sha256, rows: rows.length },
      };
    },
    async snapshotQuotas() {
      return (await platform.listQuotas({}, { signal: Context.current().cancellationSignal })).data;
    },
  };
}
export type Activities = ReturnType<typeof createBillingActivities>;
