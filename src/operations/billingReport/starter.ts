import { CliError, ExitCode } from '../../cli/command';
import { defineStarter } from '../../cli/flags';

export const starter = defineStarter({
  flags: {
    '--cycle-type <Hour|Day|Week|Month>': 'billingReport: the bill cycle',
    '--from <date>': 'billingReport: start (a date or Unix seconds, from 2026-01-01)',
    '--to <date>': 'billingReport: end (a date or Unix seconds)',
    '--category <c>': 'billingReport: only this category',
    '--product-name <p>': 'billingReport: only products whose name contains this',
    '--quotas': 'billingReport: add a snapshot of the quota list',
  },
  inputs: {
    billingReport: {
      usage:
        '--cycle-type Hour|Day|Week|Month --from 2026-02-01 --to 2026-03-12 [--category C] [--product-name P] [--quotas]',
      input: (f) => ({
        cycleType: f.cycleType,
        startTime: unixSeconds(f.from, '--from'),
        endTime: unixSeconds(f.to, '--to'),
        category: f.category,
        productName: f.productName,
        includeQuotas: f.quotas,
      }),
    },
  },
});

function unixSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new CliError(`${flag} must be a date like 2026-02-01 or Unix seconds, not "${value}".`, ExitCode.Usage);
  }
  return Math.floor(ms / 1000);
}
