// Splitting a bill-list range of any length into windows the bill list accepts: at most 7 days for
// Hour, 31 for Day, Week and Month. Pure: the billingReport workflow runs it.
import { BILL_MAX_RANGE_DAYS, type CycleType } from './schemas/account';

const DAY = 86_400;

/**
 * Consecutive windows covering [startTime, endTime] (Unix seconds, both inclusive, as the bill list
 * reads them): each spans at most the cycle type's limit, and no second is in two windows, so no
 * charge is counted twice.
 */
export function billWindows(
  cycleType: CycleType,
  startTime: number,
  endTime: number,
): Array<{ startTime: number; endTime: number }> {
  const span = BILL_MAX_RANGE_DAYS[cycleType] * DAY;
  const windows: Array<{ startTime: number; endTime: number }> = [];
  for (let s = startTime; s <= endTime; s += span) {
    windows.push({ startTime: s, endTime: Math.min(s + span - 1, endTime) });
  }
  return windows;
}
