// `schedule create`'s timing flags as a Temporal Schedule's spec and policies, checked before anything
// is sent. The server compiles and checks a cron expression itself; the check here catches the typos
// (a missing field, a stray character) with a message that names the flag. Durations (`30s`, `5m`,
// `1h30m`, `2d`) count in whole seconds, as the server rounds intervals to the second anyway.
import { ScheduleOverlapPolicy, type ScheduleOptions, type ScheduleSpec } from '@temporalio/client';
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

export interface ScheduleFlags {
  cron?: string;
  every?: string;
  overlap?: string;
  catchupWindow?: string;
  jitter?: string;
}

/** `--overlap` names: Temporal's overlap policies, `buffer-one` for BUFFER_ONE. */
const OVERLAP_POLICIES = Object.fromEntries(
  Object.values(ScheduleOverlapPolicy)
    .filter((policy) => policy !== undefined)
    .map((policy) => [policy.toLowerCase().replace('_', '-'), policy]),
) as Record<string, ScheduleOverlapPolicy>;
export const OVERLAP_NAMES = Object.keys(OVERLAP_POLICIES);

export function overlapPolicy(value: string): ScheduleOverlapPolicy {
  if (!(value in OVERLAP_POLICIES)) {
    throw new CliError(`--overlap must be one of ${OVERLAP_NAMES.join(', ')}, not "${value}".`, ExitCode.Usage);
  }
  return OVERLAP_POLICIES[value];
}

/** The `--overlap` name of a policy (the server answers SKIP for a schedule created without one). */
export function overlapName(policy: ScheduleOverlapPolicy | undefined): string {
  return OVERLAP_NAMES.find((name) => OVERLAP_POLICIES[name] === policy) ?? 'skip';
}

const CRON_SHORTHANDS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const CRON_FIELD = /^[A-Za-z0-9*?,/-]+$/;

function checkCron(expr: string): string {
  // What Temporal accepts around the fields: a time zone before them, a comment after them.
  const fields = expr
    .trim()
    .replace(/^(?:CRON_TZ|TZ)=\S+\s+/, '')
    .replace(/\s*#.*$/, '');
  const shorthand = CRON_SHORTHANDS.includes(fields.toLowerCase()) || /^@every\s+\S+$/i.test(fields);
  const parts = fields.split(/\s+/);
  if (!shorthand && (parts.length < 5 || parts.length > 7 || !parts.every((p) => CRON_FIELD.test(p)))) {
    throw new CliError(
      `--cron must be a cron expression of 5 to 7 fields such as "0 3 * * MON-FRI" (or @daily, @hourly …), ` +
        `not "${expr}".`,
      ExitCode.Usage,
    );
  }
  return expr.trim();
}

/** When the schedule runs: exactly one of --cron and --every, with an optional --jitter. */
export function scheduleSpec(flags: ScheduleFlags): ScheduleSpec {
  if ((flags.cron === undefined) === (flags.every === undefined)) {
    throw new CliError('schedule create needs exactly one of --cron "<expr>" and --every <duration>.', ExitCode.Usage);
  }
  const jitter = flags.jitter === undefined ? undefined : parseDuration(flags.jitter, '--jitter');
  if (flags.cron !== undefined) return { cronExpressions: [checkCron(flags.cron)], jitter };
  return { intervals: [{ every: parseDuration(flags.every!, '--every') }], jitter };
}

/** Overlap (default skip: a run due while the previous one still runs is not started) and catch-up window. */
export function schedulePolicies(flags: ScheduleFlags): NonNullable<ScheduleOptions['policies']> {
  return {
    overlap: overlapPolicy(flags.overlap ?? 'skip'),
    catchupWindow:
      flags.catchupWindow === undefined ? undefined : parseDuration(flags.catchupWindow, '--catchup-window'),
  };
}
