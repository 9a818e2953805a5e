// Small statistics for benchmark tables.
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** The most of `times` (epoch ms) in any sliding window of `ms`. */
export function busiestWindow(times: readonly number[], ms: number): number {
  return busiestSpan(times, ms).count;
}

/** The most `times` within any span shorter than `ms`, and when the first of them was. */
export function busiestSpan(times: readonly number[], ms: number): { count: number; fromMs: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let best = { count: 0, fromMs: NaN };
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= ms) j++;
    if (i - j + 1 > best.count) best = { count: i - j + 1, fromMs: sorted[j] };
  }
  return best;
}
