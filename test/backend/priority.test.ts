// A start's place in the quotas' queues (docs/fairness.md), checked before anything is sent: each bad
// option is refused naming the field and the rule. Pure: no server is asked.
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, startPriority } from '@platform-ops/client';

const refusal = (opts: Parameters<typeof startPriority>[1]) => {
  try {
    startPriority('mediaGeneration', opts, 'member-a');
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('start priority', () => {
  it("places a start by its class, its own key or its member's, and its weight", () => {
    expect(startPriority('mediaGeneration', {}, 'member-a').priority).toEqual({
      priorityKey: 2,
      fairnessKey: 'member-a',
    });
    expect(startPriority('billingReport', { priority: 'bulk' }, undefined, 'scheduled').priority).toEqual({
      priorityKey: 4,
      fairnessKey: 'shared',
    });
    expect(
      startPriority('mediaGeneration', { fairnessKey: 'tenant-x', fairnessWeight: 3 }, 'member-a', 'scheduled'),
    ).toMatchObject({
      priority: { priorityKey: 3, fairnessKey: 'tenant-x', fairnessWeight: 3 },
      typedSearchAttributes: [{ value: 'scheduled' }, { value: 'tenant-x' }],
    });
  });

  it('refuses a bad class, key or weight naming the field and the rule', () => {
    expect(refusal({ priority: 'urgent' as never })).toMatch(/priority: .*interactive.*scheduled.*bulk/);
    expect(refusal({ fairnessKey: 'k'.repeat(65) })).toMatch(/fairnessKey: .*64/);
    expect(refusal({ fairnessKey: 'é'.repeat(33) })).toMatch(/fairnessKey: at most 64 bytes/);
    expect(refusal({ fairnessKey: '' })).toMatch(/fairnessKey: /);
    expect(refusal({ fairnessWeight: 0 })).toMatch(/fairnessWeight: .*0\.001/);
    expect(refusal({ fairnessWeight: Number.NaN })).toMatch(/fairnessWeight: /);
  });
});
