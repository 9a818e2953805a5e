import { parseDuration } from '../../cli/schedule-spec';
import { defineStarter, num } from '../../cli/flags';
import { AutoRenewResult } from '@platform-ops/client';

export const starter = defineStarter({
  flags: {
    '--member <id>': 'autoRenew: the member whose instances are renewed and whose budget pays',
    '--member-id <id>': 'the team member whose budget pays',
    '--before <duration>': 'autoRenew: renew what expires within this (72h, 3d …)',
    '--months <n>': 'months to renew',
    '--cost-per-month <n>': 'autoRenew: one instance-month in 1/10000 USD (default: the worker price table)',
  },
  inputs: {
    autoRenew: {
      usage: '--member ID --before 72h [--months N] [--cost-per-month N]',
      input: (f) => ({
        memberId: f.member ?? f.memberId,
        beforeSeconds: f.before === undefined ? undefined : parseDuration(f.before, '--before') / 1000,
        months: num(f.months, '--months'),
        costPerMonth: num(f.costPerMonth, '--cost-per-month'),
      }),
    },
  },
});

/** For `schedule describe`. */
export function renderAutoRenewSummary(result: unknown): string | undefined {
  const parsed = AutoRenewResult.safeParse(result);
  if (!parsed.success) return undefined;
  const { renewed, skipped, refusedByBudget, failed } = parsed.data;
  return `Completed: renewed ${renewed.length}, skipped ${skipped.length}, refused by budget ${refusedByBudget.length}, failed ${failed.length}`;
}
