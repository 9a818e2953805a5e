// The Web UI's current details, rendered from the status query's answer (pure: no server).
import { renderCurrentDetails } from '../../src/workflows/status';

describe('renderCurrentDetails', () => {
  it('leads with the status, then the facts that fit on a line', () => {
    const text = renderCurrentDetails({
      operation: 'mediaGeneration',
      status: 'PROCESSING',
      detail: { status: 'PROCESSING', taskId: 'task-1', progressPercent: 40, eta: 12, outputs: [{}, {}], nested: {} },
    });
    expect(text).toBe('**PROCESSING**\n\n- taskId: task-1\n- progressPercent: 40\n- eta: 12\n- outputs: 2 items');
  });

  it('stays short however large the detail', () => {
    const detail = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'x'.repeat(500)]));
    const text = renderCurrentDetails({ operation: 'batchJob', status: 'IN_PROGRESS', detail });
    expect(text.split('\n')).toHaveLength(14);
    expect(text.length).toBeLessThanOrEqual(1_200);
    expect(text).toContain(`- k0: ${'x'.repeat(79)}…`);
  });
});
