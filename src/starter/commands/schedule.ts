// `schedule …`: Temporal Schedules of budget-gated jobs (docs/workflows/schedules.md), or a member's autoRenew.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import {
  type AutoRenewInput,
  type BudgetGatedJobInput,
  budgetJobProgressQuery,
  SearchAttributes,
  startPriority,
  workflowSummary,
  WorkflowType,
} from '@platform-ops/client';
import { failureText, tableRow, toScheduleCliError, withStarter, type Out } from '../../cli/command';
import {
  describeScheduleSpec,
  formatDuration,
  isoSeconds,
  OVERLAP_NAMES,
  overlapName,
  overlapPolicy,
  scheduleSpec,
  schedulePolicies,
  type ScheduleFlags,
} from '../../cli/schedule-spec';
import { renderAutoRenewSummary } from '../../operations/autoRenew/starter';
import { renderBudgetJobSummary } from '../../operations/budgetGatedJob/starter';
import {
  addInputOptions,
  addPriorityOptions,
  buildWorkflowInput,
  flagUsage,
  priorityOf,
  type PriorityFlags,
} from '../workflow-inputs';
import type { InputFlags } from '../../cli/flags';

interface ScheduleCreateOptions extends InputFlags, ScheduleFlags, PriorityFlags {
  taskQueue?: string;
  paused?: boolean;
  note?: string;
}

const SCHEDULE_INPUT_DEFAULTS = { onInsufficient: 'skip' };

/** autoRenew's default: a 72 h window never misses an expiry, and it costs only a few list calls a day. */
const AUTO_RENEW_EVERY = '6h';

function withSchedules(scheduleId: string, fn: (client: Client) => Promise<void>): Promise<void> {
  return withStarter(async ({ client }) => {
    await fn(client).catch((err: unknown) => {
      throw toScheduleCliError(err, scheduleId);
    });
  });
}

export function addScheduleCommands(program: Command, out: Out): void {
  const schedule = program
    .command('schedule')
    .description('Temporal Schedules whose every run is a budgetGatedJob (create, list, describe, pause …)');
  const create = addInputOptions(
    schedule
      .command('create')
      .argument('<scheduleId>')
      .description(
        'create a schedule: --cron or --every, then the budgetGatedJob as `start budgetGatedJob` takes it ' +
          `(--input JSON, or ${flagUsage('budgetGatedJob')}); a run without budget ends Skipped unless --on-insufficient says otherwise. ` +
          `\`schedule create autoRenew ${flagUsage('autoRenew')} [--every 6h]\` renews a member's expiring instances instead`,
      )
      .option('--cron <expr>', 'when to run, as cron (e.g. "0 3 * * MON-FRI", @daily); or --every')
      .option('--every <duration>', 'run every 30s, 5m, 1h …; or --cron')
      .option('--overlap <policy>', `when a run is due while the last one runs: ${OVERLAP_NAMES.join(', ')}`, 'skip')
      .option('--catchup-window <duration>', 'runs missed (Temporal down) by at most this are still started (1 year)')
      .option('--jitter <duration>', 'start each run up to this much later, at random')
      .option('--paused', 'create it paused')
      .option('--note <text>', 'a note on its state (why it is paused …)')
      .option('--task-queue <name>', 'task queue of the runs (default: TEMPORAL_TASK_QUEUE or platform-ops)'),
    SCHEDULE_INPUT_DEFAULTS,
  );
  addPriorityOptions(create, 'scheduled').action((scheduleId: string, opts: ScheduleCreateOptions) =>
    createSchedule(scheduleId, opts, out),
  );
  schedule
    .command('list')
    .description('list the schedules: spec, paused, next run, recent runs')
    .action(() =>
      withStarter(async ({ client }) => {
        let n = 0;
        const widths = [36, 28, 6, 20];
        out(tableRow(widths, ['SCHEDULE ID', 'SPEC', 'PAUSED', 'NEXT RUN', 'RECENT']));
        for await (const s of client.schedule.list()) {
          const next = s.state.paused ? undefined : s.info.nextActionTimes[0];
          const cells = [s.scheduleId, describeScheduleSpec(s.spec), s.state.paused ? 'yes' : 'no'];
          out(tableRow(widths, [...cells, next ? isoSeconds(next) : '-', s.info.recentActions.length]));
          n++;
        }
        if (n === 0) out('(no schedules)');
      }),
    );
  schedule
    .command('describe')
    .argument('<scheduleId>')
    .description('show a schedule: spec, policies, state, next runs, and how each recent run ended')
    .action((scheduleId: string) => describeSchedule(scheduleId, out));
  for (const pause of [true, false]) {
    schedule
      .command(pause ? 'pause' : 'unpause')
      .argument('<scheduleId>')
      .option('--note <text>', 'why')
      .description(
        pause ? 'stop starting runs (runs already started go on)' : 'start runs again, from the next due time',
      )
      .action((scheduleId: string, opts: { note?: string }) =>
        withSchedules(scheduleId, async (client) => {
          const handle = client.schedule.getHandle(scheduleId);
          if (pause) {
            await handle.pause(opts.note ?? 'Paused with the platform-ops starter.');
            out(`Paused schedule ${scheduleId}; runs already started go on.`);
            return;
          }
          await handle.unpause(opts.note ?? 'Unpaused with the platform-ops starter.');
          const next = (await handle.describe()).info.nextActionTimes[0];
          out(`Unpaused schedule ${scheduleId}; next run: ${next ? isoSeconds(next) : 'none'}.`);
        }),
      );
  }
  schedule
    .command('trigger')
    .argument('<scheduleId>')
    .option('--overlap <policy>', `this run's overlap policy (default: the schedule's): ${OVERLAP_NAMES.join(', ')}`)
    .description('start a run now, paused or not')
    .action((scheduleId: string, opts: { overlap?: string }) => {
      const override = opts.overlap === undefined ? undefined : overlapPolicy(opts.overlap);
      return withSchedules(scheduleId, async (client) => {
        const handle = client.schedule.getHandle(scheduleId);
        // Without --overlap the client alone would allow any overlap.
        const overlap = override ?? (await handle.describe()).policies.overlap;
        await handle.trigger(overlap);
        out(`Triggered schedule ${scheduleId}: a run starts now, as overlap ${overlapName(overlap)} allows.`);
      });
    });
  schedule
    .command('delete')
    .argument('<scheduleId>')
    .description('delete a schedule (runs it started go on)')
    .action((scheduleId: string) =>
      withSchedules(scheduleId, async (client) => {
        await client.schedule.getHandle(scheduleId).delete();
        out(`Deleted schedule ${scheduleId}; runs it started go on.`);
      }),
    );
}

async function createSchedule(id: string, opts: ScheduleCreateOptions, out: Out): Promise<void> {
  const autoRenew = id === WorkflowType.autoRenew;
  const timing = autoRenew && opts.cron === undefined && opts.every === undefined ? { every: AUTO_RENEW_EVERY } : {};
  const spec = scheduleSpec({ ...opts, ...timing });
  const policies = schedulePolicies(opts);
  const workflowType = autoRenew ? WorkflowType.autoRenew : WorkflowType.budgetGatedJob;
  const input = buildWorkflowInput(workflowType, opts, autoRenew ? {} : SCHEDULE_INPUT_DEFAULTS) as
    AutoRenewInput | BudgetGatedJobInput;
  const scheduleId = autoRenew ? `${WorkflowType.autoRenew}-${input.memberId}` : id;
  // Scheduled pipelines go behind interactive starts and ahead of bulk ones (docs/fairness.md).
  const placed = startPriority(workflowType, priorityOf(opts), input.memberId, 'scheduled');
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
          workflowType,
          // The server appends each run's time: `<scheduleId>-2026-03-01T10:00:00Z`.
          workflowId: scheduleId,
          taskQueue,
          args: [input],
          staticSummary: `${workflowSummary(workflowType, input)}, schedule ${scheduleId}`,
          typedSearchAttributes: [
            { key: SearchAttributes.operation, value: workflowType },
            { key: SearchAttributes.memberId, value: input.memberId },
            ...placed.typedSearchAttributes,
          ],
          // The server takes a start's priority from a schedule; the SDK's create type omits it.
          ...({ priority: placed.priority } as object),
        },
      })
      .catch((err: unknown) => {
        throw toScheduleCliError(err, scheduleId, { cron: opts.cron });
      });
    const created = await handle.describe();
    const eachRun =
      'job' in input
        ? `Each run is a budgetGatedJob (${input.job.workflowType}) for member ${input.memberId} on task queue ` +
          `${taskQueue}, ${input.onInsufficient ?? 'fail'} without budget.`
        : `Each run renews member ${input.memberId}'s instances that expire within ${input.beforeSeconds}s, ` +
          `budget-gated, on task queue ${taskQueue}.`;
    out(
      `Created schedule ${scheduleId}: ${describeScheduleSpec(created.spec)}, ` +
        `overlap ${overlapName(policies.overlap)}. ${eachRun}`,
    );
    const next = created.info.nextActionTimes[0];
    out(opts.paused ? 'It is paused: `schedule unpause` starts it.' : `Next run: ${next ? isoSeconds(next) : 'none'}.`);
  });
}

/** `Completed: reserved …`, `Running (WAITING_FOR_BUDGET)`, `Failed: … [BudgetExceeded]` … */
export async function runLine(handle: Pick<WorkflowHandle, 'describe' | 'query' | 'result'>): Promise<string> {
  const described = await handle.describe().catch(() => undefined);
  if (!described) return 'no longer found (its history may have been removed)';
  const status = described.status.name;
  if (status === 'RUNNING') {
    const progress = await handle.query(budgetJobProgressQuery).catch(() => undefined);
    return progress ? `Running (${progress.status})` : 'Running';
  }
  try {
    const result: unknown = await handle.result();
    return renderBudgetJobSummary(result) ?? renderAutoRenewSummary(result) ?? 'Completed';
  } catch (err) {
    if (status === 'FAILED' && err instanceof Error) return `Failed: ${failureText(err)}`;
    return status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, ' ');
  }
}

function describeSchedule(scheduleId: string, out: Out): Promise<void> {
  return withSchedules(scheduleId, async (client) => {
    const d = await client.schedule.getHandle(scheduleId).describe();
    const input = d.action.args?.[0] as Partial<BudgetGatedJobInput> | undefined;
    out(`Schedule ${scheduleId}`);
    out(`  spec:       ${describeScheduleSpec(d.spec)}`);
    out(`  jitter:     ${d.spec.jitter ? `up to ${formatDuration(d.spec.jitter)}` : 'none'}`);
    out(`  overlap:    ${overlapName(d.policies.overlap)}`);
    out(`  catch-up:   ${formatDuration(d.policies.catchupWindow)} (runs missed by more are not started)`);
    out(`  state:      ${d.state.paused ? 'paused' : 'active'}${d.state.note ? ` ("${d.state.note}")` : ''}`);
    out(
      `  action:     ${d.action.workflowType} on task queue ${d.action.taskQueue}` +
        (input?.memberId ? `, member ${input.memberId}${input.job ? `, job ${input.job.workflowType}` : ''}` : '') +
        (input?.onInsufficient ? `, ${input.onInsufficient} without budget` : ''),
    );
    out(
      `  runs:       ${d.info.numActionsTaken} started, ${d.info.numActionsSkippedOverlap} skipped for overlap, ` +
        `${d.info.numActionsMissedCatchupWindow} missed the catch-up window`,
    );
    const next = d.info.nextActionTimes.slice(0, 3).map(isoSeconds);
    out(`  next runs:  ${d.state.paused ? '(paused)' : next.length > 0 ? next.join('  ') : 'none'}`);
    out(`  recent runs:${d.info.recentActions.length === 0 ? ' none yet' : ''}`);
    const lines = await Promise.all(
      d.info.recentActions.map(({ action: { workflow } }) =>
        runLine(client.workflow.getHandle(workflow.workflowId, workflow.firstExecutionRunId)),
      ),
    );
    d.info.recentActions.forEach((run, i) => {
      out(`    ${isoSeconds(run.takenAt)}  ${run.action.workflow.workflowId}  ${lines[i]}`);
    });
  });
}
