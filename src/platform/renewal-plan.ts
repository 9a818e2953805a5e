// Which of a member's instances are due for renewal; every other is skipped with the reason (workflow code).
import type { ListedInstance } from '@platform-ops/client';

export type RenewalCandidate = Pick<ListedInstance, 'id' | 'status' | 'billingMode' | 'endTime' | 'memberId'>;

export interface DueRenewal {
  instanceId: string;
  /** As the platform sent it: the renewal renews exactly this one. */
  endTime: string | number;
  endsAtMs: number;
}

export interface RenewalPlan {
  due: DueRenewal[];
  skipped: Array<{ instanceId: string; reason: string }>;
}

// Renewing an instance on its way out would pay for nothing.
const GOING = new Set(['toRemove', 'removing', 'removed']);

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function expiryMs(endTime: string | number | undefined): number | undefined {
  if (endTime === undefined || endTime === '') return undefined;
  const seconds = Number(endTime);
  return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
}

function skipReason(inst: RenewalCandidate, endsAt: number | undefined, memberId: string, windowEnd: number) {
  // The list is asked for the member's instances; one that says it is another's is not paid for here.
  if (inst.memberId !== undefined && inst.memberId !== memberId) return `belongs to member ${inst.memberId}`;
  if (GOING.has(inst.status)) return `is ${inst.status}`;
  if (inst.billingMode === 'payAsYouGo' || endsAt === -1000) return 'is pay-as-you-go: it has no expiry to renew';
  if (endsAt === undefined || endsAt < 0)
    return `has no readable expiry (endTime ${JSON.stringify(inst.endTime ?? null)})`;
  if (endsAt > windowEnd) return `not due: expires ${iso(endsAt)}, after the window ends ${iso(windowEnd)}`;
  return undefined;
}

export function planRenewals(
  instances: readonly RenewalCandidate[],
  opts: { memberId: string; nowMs: number; beforeMs: number },
): RenewalPlan {
  const plan: RenewalPlan = { due: [], skipped: [] };
  const windowEnd = opts.nowMs + opts.beforeMs;
  for (const inst of instances) {
    const endsAt = expiryMs(inst.endTime);
    const reason = skipReason(inst, endsAt, opts.memberId, windowEnd);
    if (reason !== undefined) plan.skipped.push({ instanceId: inst.id, reason });
    else plan.due.push({ instanceId: inst.id, endTime: inst.endTime!, endsAtMs: endsAt! });
  }
  // Soonest expiry first: with a budget that covers only some, those closest to lapsing go first.
  plan.due.sort((a, b) => a.endsAtMs - b.endsAtMs || (a.instanceId < b.instanceId ? -1 : 1));
  return plan;
}
