// Bill-list windows: within the platform's limit, contiguous, and never overlapping.
import { BillListRequest, billWindows } from '@platform-ops/client';

const DAY = 86_400;
const start = Date.parse('2026-02-01T00:00:00Z') / 1000;

describe('billWindows', () => {
  it.each([
    ['Hour', 40, 6],
    ['Hour', 7, 1],
    ['Hour', 7.5, 2],
    ['Day', 40, 2],
    ['Month', 31, 1],
    ['Week', 365, 12],
  ] as const)('%s over %s days: %s windows', (cycleType, days, count) => {
    const end = start + days * DAY - 1;
    const windows = billWindows(cycleType, start, end);
    expect(windows).toHaveLength(count);
    expect(windows[0].startTime).toBe(start);
    expect(windows[windows.length - 1].endTime).toBe(end);
    for (const [i, w] of windows.entries()) {
      // Every window is one the bill list accepts, and the next starts the second after it ends.
      expect(BillListRequest.safeParse({ cycleType, ...w }).success || w.endTime === w.startTime).toBe(true);
      if (i > 0) expect(w.startTime).toBe(windows[i - 1].endTime + 1);
    }
  });
});
