// Durations on the command line (`30s`, `5m`, `1h30m`, `2d`) for Temporal Schedules, which count in
// whole seconds: the server rounds intervals to the second anyway.
import { CliError, ExitCode } from './exit-codes';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+[smhd])+$/;

/** Milliseconds; anything else than `<n><unit>…` with s, m, h or d, or a zero duration, is refused. */
export function parseDuration(value: string, flag: string): number {
  const text = value.trim().toLowerCase();
  if (!DURATION.test(text)) {
    throw new CliError(`${flag} must be a duration such as 30s, 5m, 1h or 1h30m, not "${value}".`, ExitCode.Usage);
  }
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * UNIT_MS[unit];
  if (ms <= 0) throw new CliError(`${flag} must be longer than 0s, not "${value}".`, ExitCode.Usage);
  return ms;
}

/** `4s`, `1h30m`, `365d`: the inverse of parseDuration (a fraction of a second reads `250ms`). */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1_000) return `${ms}ms`;
  let rest = Math.round(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}s`);
  return parts.join('');
}
