// Which instances autoRenew renews: pure, no server.
import { planRenewals, type RenewalCandidate } from '../../src/platform/renewal-plan';

const NOW = Date.UTC(2026, 10, 23, 12);
const HOUR = 3_600_000;
const at = (ms: number) => Math.floor(ms / 1000);
const sub = (id: string, endsInHours: number, extra: Partial<RenewalCandidate> = {}): RenewalCandidate => ({
  id,
  status: 'running',
  billingMode: 'subscription',
  endTime: at(NOW + endsInHours * HOUR),
  memberId: 'm1',
  ...extra,
});
const plan = (instances: RenewalCandidate[]) =>
  planRenewals(instances, { memberId: 'm1', nowMs: NOW, beforeMs: 72 * HOUR });

describe('planRenewals', () => {
  it('renews the subscriptions that expire within the window, soonest first, and skips the rest with a reason', () => {
    const { due, skipped } = plan([
      sub('later', 100),
      sub('soon', 10),
      sub('edge', 72),
      sub('sooner', 1),
      sub('lapsed', -5),
      sub('exited', 20, { status: 'exited' }),
    ]);
    expect(due.map((d) => d.instanceId)).toEqual(['lapsed', 'sooner', 'soon', 'exited', 'edge']);
    expect(due[0].endTime).toBe(at(NOW - 5 * HOUR));
    expect(skipped).toEqual([
      { instanceId: 'later', reason: expect.stringMatching(/^not due: expires 2026-11-27T16:00:00Z/) },
    ]);
  });

  it('never renews what is pay-as-you-go, going away, without a readable expiry, or another member’s', () => {
    const { due, skipped } = plan([
      sub('payg', 1, { billingMode: 'payAsYouGo', endTime: -1 }),
      sub('minus-one', 1, { billingMode: undefined, endTime: '-1' }),
      sub('removing', 1, { status: 'removing' }),
      sub('removed', 1, { status: 'removed' }),
      sub('no-expiry', 1, { endTime: undefined }),
      sub('garbled', 1, { endTime: 'soon' }),
      sub('other', 1, { memberId: 'm2' }),
      sub('unsaid', 1, { memberId: undefined }),
    ]);
    expect(due.map((d) => d.instanceId)).toEqual(['unsaid']);
    expect(Object.fromEntries(skipped.map((s) => [s.instanceId, s.reason]))).toEqual({
      payg: 'is pay-as-you-go: it has no expiry to renew',
      'minus-one': 'is pay-as-you-go: it has no expiry to renew',
      removing: 'is removing',
      removed: 'is removed',
      'no-expiry': 'has no readable expiry (endTime null)',
      garbled: 'has no readable expiry (endTime "soon")',
      other: 'belongs to member m2',
    });
  });

  it('keeps the expiry as the platform sent it (a string stays a string): the renewal id and check use it', () => {
    const { due } = plan([sub('s', 5, { endTime: String(at(NOW + 5 * HOUR)) })]);
    expect(due[0].endTime).toBe(String(at(NOW + 5 * HOUR)));
    expect(due[0].endsAtMs).toBe(at(NOW + 5 * HOUR) * 1000);
  });
});
