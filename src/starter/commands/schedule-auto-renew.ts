// `schedule create autoRenew --member M --before 72h`: a Temporal Schedule whose every run is an
// autoRenew of that member's instances (one schedule per member: `autoRenew-<member>`). Each run
// renews what expires within the window through the member's ledger; the renewals' own ids keep two
// runs from renewing one expiry twice, and overlap `skip` (the default) keeps runs from overlapping.
import { WorkflowType } from '../../workflows/operations';
import { type AutoRenewInput } from '../../workflows/autoRenew/contract';
import { createMemberSchedule } from '../schedule-create';
import { scheduleSpec, schedulePolicies } from '../schedule-options';
import { buildWorkflowInput } from '../workflow-inputs';
import type { ScheduleCreateOptions } from './schedule';

/** Often enough that a 72 h window never misses an expiry, rare enough to cost a few list calls a day. */
const DEFAULT_EVERY = '6h';

export const autoRenewScheduleId = (memberId: string): string => `${WorkflowType.autoRenew}-${memberId}`;

export async function scheduleAutoRenewCommand(
  opts: ScheduleCreateOptions,
  out: (line: string) => void,
): Promise<void> {
  // Everything is checked before connecting: nothing is created from a bad command line.
  const timing = opts.cron === undefined && opts.every === undefined ? { ...opts, every: DEFAULT_EVERY } : opts;
  const spec = scheduleSpec(timing);
  const policies = schedulePolicies(timing);
  const input = buildWorkflowInput(WorkflowType.autoRenew, opts) as AutoRenewInput;
  const scheduleId = autoRenewScheduleId(input.memberId);
  await createMemberSchedule(
    {
      scheduleId,
      spec,
      policies,
      workflowType: WorkflowType.autoRenew,
      input,
      flags: opts,
      eachRun: (taskQueue) =>
        `Each run renews member ${input.memberId}'s instances that expire within ${input.beforeSeconds}s, ` +
        `budget-gated, on task queue ${taskQueue}.`,
    },
    out,
  );
}
