// The starter's budgetGatedJob support without a workflow: the progress line `start … --wait` draws,
// and the one-line summary of the result.
import type { BudgetJobProgress } from '@platform-ops/client';
import { formatAmount } from '../../src/platform/money';
import { renderBudgetJobProgress, renderBudgetJobSummary } from '../../src/operations/budgetGatedJob/starter';

const NOW = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const progress = (patch: Partial<BudgetJobProgress> = {}): BudgetJobProgress => ({
  status: 'PRICING',
  memberId: 'member-1',
  onInsufficient: 'wait',
  reservationId: 'job-1@run-1',
  checks: 0,
  ...patch,
});

describe('renderBudgetJobProgress', () => {
  it('shows the status and the checks before the cost is known', () => {
    expect(renderBudgetJobProgress(progress(), NOW)).toBe('PRICING  checks 0');
  });

  it('counts down to the wait deadline while waiting for budget, with what other jobs hold', () => {
    const waiting = progress({
      status: 'WAITING_FOR_BUDGET',
      cost: 5_600,
      checks: 1,
      lastRefusal: { checkedCost: 11_200, outstanding: 5_600, at: at(0) },
      waitingSince: at(0),
      waitDeadline: at(3_600_000),
    });
    expect(renderBudgetJobProgress(waiting, NOW)).toBe(
      'WAITING_FOR_BUDGET  cost 5600 (0.5600 USD)  checks 1  others hold 5600  wait ends in 1h00m',
    );
    expect(renderBudgetJobProgress(waiting, NOW + 3_600_000 - 65_000)).toContain('wait ends in 1m05s');
    expect(renderBudgetJobProgress(waiting, NOW + 4_000_000)).toContain('wait ends in 0s');
  });

  it('leaves out "others hold" when nothing else is reserved, and the countdown once admitted', () => {
    const alone = progress({
      status: 'WAITING_FOR_BUDGET',
      cost: 1_000,
      checks: 1,
      lastRefusal: { checkedCost: 1_000, outstanding: 0 },
      waitDeadline: at(600_000),
    });
    expect(renderBudgetJobProgress(alone, NOW)).toBe(
      'WAITING_FOR_BUDGET  cost 1000 (0.1000 USD)  checks 1  wait ends in 10m00s',
    );
    const running = { ...alone, status: 'RUNNING_JOB' as const, checks: 3, childWorkflowId: 'job-1/mediaGeneration' };
    expect(renderBudgetJobProgress(running, NOW)).toBe(
      'RUNNING_JOB  cost 1000 (0.1000 USD)  checks 3  job job-1/mediaGeneration',
    );
  });

  it("shows the gate's cost, and the outcome once there is one", () => {
    const rejected = progress({ status: 'REJECTED', outcome: 'Rejected', cost: 5_600, gateCost: 20, checks: 1 });
    expect(renderBudgetJobProgress(rejected, NOW)).toBe(
      'Rejected  cost 5600 (0.5600 USD)  gate 20 (0.0020 USD)  checks 1',
    );
  });
});

describe('renderBudgetJobSummary', () => {
  const admission = {
    decision: 'admitted',
    reservationId: 'job-1@run-1',
    ledgerWorkflowId: 'budgetLedger:member-1',
    cost: 5_600,
    costSource: 'priceTable',
    gateCost: 0,
    reserved: 5_600,
    reservedUsd: '0.5600',
    outstandingAtCheck: 0,
    checkedCost: 5_600,
    checks: 1,
    waitedSeconds: 0,
  };

  it('names the outcome, what was reserved and the child workflow', () => {
    expect(
      renderBudgetJobSummary({
        outcome: 'Completed',
        memberId: 'member-1',
        admission,
        job: { workflowType: 'mediaGeneration', workflowId: 'job-1/mediaGeneration', result: {} },
        released: true,
      }),
    ).toBe('Completed: reserved 5600 (0.5600 USD), job mediaGeneration as workflow job-1/mediaGeneration.');
  });

  it('gives the reason of a run that did not run its job', () => {
    expect(
      renderBudgetJobSummary({
        outcome: 'Skipped',
        memberId: 'member-1',
        reason: "Member member-1's budget does not cover 5600.",
        admission: { ...admission, decision: 'refused', reserved: 0, reservedUsd: '0.0000' },
        released: false,
      }),
    ).toBe("Skipped: reserved 0 (0.0000 USD). Member member-1's budget does not cover 5600.");
    expect(renderBudgetJobSummary({ something: 'else' })).toBeUndefined();
  });

  it('formats amounts in the unit and in USD', () => {
    expect([0, 1, 5_600, 1_234_567].map(formatAmount)).toEqual([
      '0 (0.0000 USD)',
      '1 (0.0001 USD)',
      '5600 (0.5600 USD)',
      '1234567 (123.4567 USD)',
    ]);
  });
});
