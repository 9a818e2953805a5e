// `schedule create autoRenew --member M --before 72h`: a Temporal Schedule whose every run is an
// autoRenew of that member's instances (one schedule per member: `autoRenew-<member>`). Each run
// renews what expires within the window through the member's ledger; the renewals' own ids keep two
// runs from renewing one expiry twice, and overlap `skip` (the default) keeps runs from overlapping.
import { SearchAttributes, WorkflowType, type AutoRenewInput } from '../../api';
import { withStarter } from '../connect';
import { toScheduleCliError } from '../schedule-failures';
import { overlapName, scheduleSpec, schedulePolicies } from '../schedule-options';
import { describeScheduleSpec, isoSeconds } from '../schedule-view';
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
  await withStarter(async ({ client, settings }) => {
    const taskQueue = opts.taskQueue ?? settings.taskQueue;
    const handle = await client.schedule
      .create({
        scheduleId,
        spec,
        policies,
        state: { paused: opts.paused, note: opts.note },
        action: {
          type: 'startWorkflow',
          workflowType: WorkflowType.autoRenew,
          // The server appends each run's time: `autoRenew-<member>-2026-03-01T10:00:00Z`.
          workflowId: scheduleId,
          taskQueue,
          args: [input],
          typedSearchAttributes: [
            { key: SearchAttributes.operation, value: WorkflowType.autoRenew },
            { key: SearchAttributes.memberId, value: input.memberId },
          ],
        },
      })
      .catch((err: unknown) => {
        throw toScheduleCliError(err, scheduleId, { cron: opts.cron });
      });
    const created = await handle.describe();
    out(
      `Created schedule ${scheduleId}: ${describeScheduleSpec(created.spec)}, overlap ${overlapName(policies.overlap)}. ` +
        `Each run renews member ${input.memberId}'s instances that expire within ${input.beforeSeconds}s, ` +
        `budget-gated, on task queue ${taskQueue}.`,
    );
    const next = created.info.nextActionTimes[0];
    out(opts.paused ? 'It is paused: `schedule unpause` starts it.' : `Next run: ${next ? isoSeconds(next) : 'none'}.`);
  });
}
