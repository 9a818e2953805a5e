// What `schedule list` and `schedule describe` print, from what the server answers. The server keeps a
// cron expression compiled into calendar ranges, so it is written back as cron here. Pure.
import type { CalendarSpecDescription, Range, ScheduleSpecDescription } from '@temporalio/client';
import { AutoRenewResult } from '../workflows/autoRenew/contract';
import { renderBudgetJobSummary } from '../workflows/budget/starter';
import { formatDuration } from './schedule-options';

/** `2026-03-01T10:00:04Z`: schedules work in whole seconds. */
export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One cron field: `*`, `5`, `1-5`, `0-30/10`, several joined by commas. */
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

/** `every 4s`, `cron "0 3 * * MON-FRI"`, joined when there are several. */
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

/** Where one run a schedule started stands, as the command found it. */
export type RunState =
  | { status: 'RUNNING'; progressStatus?: string }
  | { status: 'COMPLETED'; result: unknown }
  | { status: 'NOT_FOUND' }
  /** Failed, cancelled, terminated or timed out: the failure as one sentence. */
  | { status: string; failure: string };

/** `Completed: reserved …`, `Skipped: reserved 0 (0.0000 USD). Member …`, `Running (WAITING_FOR_BUDGET)` … */
export function renderRunState(run: RunState): string {
  if (run.status === 'NOT_FOUND') return 'no longer found (its history may have been removed)';
  if ('failure' in run) return run.failure;
  if ('result' in run) return renderBudgetJobSummary(run.result) ?? renderAutoRenewSummary(run.result) ?? 'Completed';
  return 'progressStatus' in run && run.progressStatus ? `Running (${run.progressStatus})` : 'Running';
}

/** An autoRenew run's result in one line: `Completed: renewed 1, skipped 2, refused by budget 0, failed 0`. */
function renderAutoRenewSummary(result: unknown): string | undefined {
  const parsed = AutoRenewResult.safeParse(result);
  if (!parsed.success) return undefined;
  const { renewed, skipped, refusedByBudget, failed } = parsed.data;
  return `Completed: renewed ${renewed.length}, skipped ${skipped.length}, refused by budget ${refusedByBudget.length}, failed ${failed.length}`;
}
