// autoRenew's flags and how they make its input. Not workflow-safe: only the starter loads it.
import { parseDuration } from '../../starter/schedule-options';
import { defineStarter, num } from '../../starter/workflow-inputs';

export const starter = defineStarter({
  flags: {
    '--member <id>': 'autoRenew: the member whose instances are renewed and whose budget pays',
    // --member-id works too, as for the other operations.
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
