// `schedule create`'s timing as a Schedule's spec and policies, and the server's spec as text. Durations are whole
// seconds: the server rounds intervals to the second.
import {
  ScheduleOverlapPolicy,
  type CalendarSpecDescription,
  type Range,
  type ScheduleOptions,
  type ScheduleSpec,
  type ScheduleSpecDescription,
} from '@temporalio/client';
import { CliError, ExitCode } from './command';

/** Largest first, as formatDuration writes them. */
const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;
const DURATION = /^(?:\d+[smhd])+$/;

/** In milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const text = value.trim().toLowerCase();
  if (!DURATION.test(text)) {
    throw new CliError(`${flag} must be a duration such as 30s, 5m, 1h or 1h30m, not "${value}".`, ExitCode.Usage);
  }
  let seconds = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([smhd])/g))
    seconds += Number(n) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
  if (seconds <= 0) throw new CliError(`${flag} must be longer than 0s, not "${value}".`, ExitCode.Usage);
  return seconds * 1_000;
}

/** `4s`, `1h30m`, `365d`, `250ms`: the inverse of parseDuration. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1_000) return `${ms}ms`;
  let rest = Math.round(ms / 1_000);
  let text = '';
  for (const [unit, size] of Object.entries(UNIT_SECONDS)) {
    // Seconds are written when nothing else is, so that zero reads `0s`.
    if (rest >= size || (size === 1 && text === '')) text += `${Math.floor(rest / size)}${unit}`;
    rest %= size;
  }
  return text;
}

export interface ScheduleFlags {
  cron?: string;
  every?: string;
  overlap?: string;
  catchupWindow?: string;
  jitter?: string;
}

/** `buffer-one` for BUFFER_ONE … */
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

/** The server answers SKIP for a schedule created without a policy. */
export function overlapName(policy: ScheduleOverlapPolicy | undefined): string {
  return OVERLAP_NAMES.find((name) => OVERLAP_POLICIES[name] === policy) ?? 'skip';
}

const CRON_SHORTHANDS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const CRON_FIELD = /^[A-Za-z0-9*?,/-]+$/;

/** The server checks the cron itself; this check names the flag. */
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

export function scheduleSpec(flags: ScheduleFlags): ScheduleSpec {
  if ((flags.cron === undefined) === (flags.every === undefined)) {
    throw new CliError('schedule create needs exactly one of --cron "<expr>" and --every <duration>.', ExitCode.Usage);
  }
  const jitter = flags.jitter === undefined ? undefined : parseDuration(flags.jitter, '--jitter');
  if (flags.cron !== undefined) return { cronExpressions: [checkCron(flags.cron)], jitter };
  return { intervals: [{ every: parseDuration(flags.every!, '--every') }], jitter };
}

export function schedulePolicies(flags: ScheduleFlags): NonNullable<ScheduleOptions['policies']> {
  return {
    overlap: overlapPolicy(flags.overlap ?? 'skip'),
    catchupWindow:
      flags.catchupWindow === undefined ? undefined : parseDuration(flags.catchupWindow, '--catchup-window'),
  };
}

/** `2026-03-01T10:00:04Z` */
export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `*`, `5`, `1-5`, `0-30/10`, several joined by commas. */
function cronField<T extends string | number>(ranges: Range<T>[], all: [T, T], name = (v: T) => String(v)): string {
  if (ranges.length === 0) return '*';
  return ranges
    .map(({ start, end, step }) => {
      const every = step > 1 ? `/${step}` : '';
      if (start === all[0] && end === all[1]) return `*${every}`;
      if (end === start) return `${name(start)}${every}`;
      return `${name(start)}-${name(end)}${every}`;
    })
    .join(',');
}

const short = (name: string) => name.slice(0, 3);

/** Five fields when the seconds are 0 and any year goes; else the seven-field form Temporal reads too. */
export function calendarAsCron(c: CalendarSpecDescription): string {
  const fields = [
    cronField(c.minute, [0, 59]),
    cronField(c.hour, [0, 23]),
    cronField(c.dayOfMonth, [1, 31]),
    cronField(c.month, ['JANUARY', 'DECEMBER'], short),
    cronField(c.dayOfWeek, ['SUNDAY', 'SATURDAY'], short),
  ];
  const second = cronField(c.second, [0, 59]);
  const year = cronField(c.year, [0, 0]); // any year is no range at all
  if (second === '0' && year === '*') return fields.join(' ');
  return [second, ...fields, year].join(' ');
}

export function describeScheduleSpec(spec: ScheduleSpecDescription | undefined): string {
  const parts = [
    ...(spec?.intervals ?? []).map(
      (i) => `every ${formatDuration(i.every)}${i.offset ? ` (offset ${formatDuration(i.offset)})` : ''}`,
    ),
    ...(spec?.calendars ?? []).map((c) => `cron "${calendarAsCron(c)}"`),
  ];
  const zone = spec?.timezone && spec.timezone !== 'UTC' ? ` (${spec.timezone})` : '';
  return parts.length > 0 ? `${parts.join(', ')}${zone}` : '(no times: runs only when triggered)';
}
