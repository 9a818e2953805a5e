// Money: each member's remaining budget, every charge, and the bill list built from the charges
// (aggregated per period of the cycleType, product and API key, with the spec's fields as strings).
import type { BillListRequest, CycleType } from '@platform-ops/client';
import type { Caller, ChargeInput } from './types';
import type { MemberFixture } from './fixtures';
import { billPrices } from './pricing';

interface MemberState {
  id: string;
  name: string;
  /** 1/10000 USD; null = no limit. May go below 0: work that finished is charged in full. */
  remaining: number | null;
  /** Sum of every charge since the last reset. */
  spent: number;
}

export interface ChargeRecord extends ChargeInput {
  /** Emulated Unix ms. */
  at: number;
  /** Whether the member's budget was debited (false for fixture history). */
  debited: boolean;
}

class UnknownMemberError extends Error {
  override readonly name = 'UnknownMemberError';
  constructor(readonly memberId: string) {
    super(`member ${memberId} is not known to the emulator`);
  }
}

/** A bill line as the bill list answers it (spec "API key bill"). */
type BillLine = Record<string, string | number>;

const HOUR_S = 3_600;
const DAY_S = 86_400;

/** First and last second of the period of `cycle` that holds `t` (Unix s, UTC; weeks start on Monday). */
function periodOf(t: number, cycle: CycleType): { start: number; end: number } {
  switch (cycle) {
    case 'Hour': {
      const start = Math.floor(t / HOUR_S) * HOUR_S;
      return { start, end: start + HOUR_S - 1 };
    }
    case 'Day': {
      const start = Math.floor(t / DAY_S) * DAY_S;
      return { start, end: start + DAY_S - 1 };
    }
    case 'Week': {
      const days = Math.floor(t / DAY_S);
      // 1970-01-01 was a Thursday: (days + 3) % 7 is the weekday counted from Monday.
      const start = (days - ((days + 3) % 7)) * DAY_S;
      return { start, end: start + 7 * DAY_S - 1 };
    }
    case 'Month': {
      const d = new Date(t * 1000);
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
      const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
      return { start, end: next - 1 };
    }
  }
}

export class Accounts {
  private readonly membersById = new Map<string, MemberState>();
  private readonly records: ChargeRecord[] = [];

  constructor(private readonly now: () => number) {}

  /** Replaces every member and charge (reset / fixture load). */
  load(members: readonly MemberFixture[], history: readonly ChargeRecord[]): void {
    this.membersById.clear();
    for (const m of members) this.membersById.set(m.id, { id: m.id, name: m.name, remaining: m.remaining, spent: 0 });
    this.records.length = 0;
    this.records.push(...history);
  }

  member(id: string): MemberState | undefined {
    return this.membersById.get(id);
  }

  members(): MemberState[] {
    return [...this.membersById.values()].map((m) => ({ ...m }));
  }

  /** Sets a member's remaining budget (admin top-up); false if the member is unknown. */
  setRemaining(id: string, remaining: number | null): boolean {
    const m = this.membersById.get(id);
    if (!m) return false;
    m.remaining = remaining;
    return true;
  }

  /** Whether the member may start work costing `amount` (check-budget semantics: remaining >= cost). */
  canAfford(memberId: string, amount: number): boolean {
    const m = this.membersById.get(memberId);
    if (!m) return false;
    return m.remaining === null || m.remaining >= amount;
  }

  /**
   * Debits the member and records a bill line. Throws UnknownMemberError for a member the fixtures do
   * not have; never refuses for lack of budget, since the work is already done (starts check first).
   */
  charge(input: ChargeInput): ChargeRecord {
    const m = this.membersById.get(input.caller.memberId);
    if (!m) throw new UnknownMemberError(input.caller.memberId);
    if (m.remaining !== null) m.remaining -= input.amount;
    m.spent += input.amount;
    const record: ChargeRecord = { ...input, at: this.now(), debited: true };
    this.records.push(record);
    return record;
  }

  charges(): readonly ChargeRecord[] {
    return this.records;
  }

  /** The bill list of one user: charges in [startTime, endTime] summed per period, product and key. */
  bills(userId: string, q: BillListRequest): BillLine[] {
    const category = q.category?.toLowerCase();
    const name = q.productName?.toLowerCase();
    const groups = new Map<string, { period: { start: number; end: number }; charges: ChargeRecord[] }>();
    for (const c of this.records) {
      if (c.caller.userId !== userId) continue;
      const t = Math.floor(c.at / 1000);
      if (t < q.startTime || t > q.endTime) continue;
      if (category !== undefined && c.category.toLowerCase() !== category) continue;
      if (name !== undefined && !c.productName.toLowerCase().includes(name)) continue;
      const period = periodOf(t, q.cycleType);
      const key = `${period.start}\u0000${c.productId}\u0000${c.caller.apiKeyId}`;
      const group = groups.get(key);
      if (group) group.charges.push(c);
      else groups.set(key, { period, charges: [c] });
    }
    return [...groups.values()]
      .map((g) => billLine(g.period, g.charges))
      .sort(
        (a, b) =>
          Number(a.startTime) - Number(b.startTime) ||
          String(a.productName).localeCompare(String(b.productName)) ||
          String(a.ownerID).localeCompare(String(b.ownerID)),
      );
  }
}

function billLine(period: { start: number; end: number }, charges: ChargeRecord[]): BillLine {
  const first = charges[0];
  const caller: Caller = first.caller;
  const usage = new Array<number>(16).fill(0);
  let amount = 0;
  for (const c of charges) {
    amount += c.amount;
    for (const [field, value] of Object.entries(c.usage ?? {})) {
      const i = Number(field.slice('billNum'.length));
      const n = Number(value);
      if (i >= 0 && i < 16 && Number.isFinite(n)) usage[i] += n;
    }
  }
  const price = billPrices(first.productId);
  const line: BillLine = {
    userId: caller.userId,
    startTime: String(period.start),
    endTime: String(period.end),
    billingMethod: price.billingMethod,
    productName: first.productName,
    category: first.category,
    productId: first.productId,
    ownerID: caller.apiKeyId,
    apikeyName: caller.apiKeyName,
    apikeyMask: caller.apiKeyMask,
  };
  // billNum0..5 are required; 6..15 only when some charge used them.
  usage.forEach((n, i) => {
    if (i < 6 || n !== 0) line[`billNum${i}`] = String(n);
  });
  price.prices.forEach((p, i) => {
    line[`basePrice${i}`] = String(p);
    line[`discountPrice${i}`] = String(p);
  });
  line.amount = String(amount);
  line.voucherAmount = '0';
  line.payAmount = String(amount);
  line.payAmountDisplay = amount / 10_000;
  line.pricePrecision = price.pricePrecision;
  return line;
}
