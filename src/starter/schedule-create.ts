// Creating a Temporal Schedule whose runs start one workflow type for one member, and saying what was
// made: shared by `schedule create <id>` (budgetGatedJob runs) and `schedule create autoRenew`.
import type { ScheduleOptions } from '@temporalio/client';
import { SearchAttributes } from '../api/contract';
import { type WorkflowTypeName } from '../workflows/operations';
import { workflowSummary } from '../workflows/operations';
import { withStarter } from './connect';
import { toScheduleCliError } from './schedule-failures';
import { overlapName } from './schedule-options';
import { describeScheduleSpec, isoSeconds } from './schedule-view';

export interface MemberSchedule {
  scheduleId: string;
  spec: ScheduleOptions['spec'];
  policies: NonNullable<ScheduleOptions['policies']>;
  workflowType: WorkflowTypeName;
  input: { memberId: string };
  flags: { taskQueue?: string; paused?: boolean; note?: string; cron?: string };
  /** What each run does, after "Created schedule <id>: <spec>, overlap <policy>. ". */
  eachRun(taskQueue: string): string;
}

export async function createMemberSchedule(s: MemberSchedule, out: (line: string) => void): Promise<void> {
  await withStarter(async ({ client, settings }) => {
    const taskQueue = s.flags.taskQueue ?? settings.taskQueue;
    const handle = await client.schedule
      .create({
        scheduleId: s.scheduleId,
        spec: s.spec,
        policies: s.policies,
        state: { paused: s.flags.paused, note: s.flags.note },
        action: {
          type: 'startWorkflow',
          workflowType: s.workflowType,
          // The server appends each run's time: `<scheduleId>-2026-03-01T10:00:00Z`.
          workflowId: s.scheduleId,
          taskQueue,
          args: [s.input],
          // Each run's one line in the Web UI, as a start by hand has.
          staticSummary: `${workflowSummary(s.workflowType, s.input)}, schedule ${s.scheduleId}`,
          typedSearchAttributes: [
            { key: SearchAttributes.operation, value: s.workflowType },
            { key: SearchAttributes.memberId, value: s.input.memberId },
          ],
        },
      })
      .catch((err: unknown) => {
        throw toScheduleCliError(err, s.scheduleId, { cron: s.flags.cron });
      });
    const created = await handle.describe();
    out(
      `Created schedule ${s.scheduleId}: ${describeScheduleSpec(created.spec)}, ` +
        `overlap ${overlapName(s.policies.overlap)}. ${s.eachRun(taskQueue)}`,
    );
    const next = created.info.nextActionTimes[0];
    out(
      s.flags.paused ? 'It is paused: `schedule unpause` starts it.' : `Next run: ${next ? isoSeconds(next) : 'none'}.`,
    );
  });
}
