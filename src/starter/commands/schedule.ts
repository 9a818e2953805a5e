// `schedule …`: Temporal Schedules whose every run is a budgetGatedJob, so a recurring job is admitted
// through its member's ledger like any other, and a run without budget ends Skipped (a success) by
// default instead of failing. The schedule lives on the server: no process of ours has to stay up.
import type { Client, ScheduleExecutionResult } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { budgetJobProgressQuery, type BudgetGatedJobInput } from '../../workflows/budget/contract';
import { WorkflowType } from '../../workflows/operations';
import { withStarter } from '../connect';
import { formatDuration } from '../durations';
import { rootCause } from '../failures';
import { toScheduleCliError } from '../schedule-failures';
import { overlapName, overlapPolicy, scheduleSpec, schedulePolicies, type ScheduleFlags } from '../schedule-options';
import { describeScheduleSpec, isoSeconds, renderRunState, type RunState } from '../schedule-view';
import { buildWorkflowInput, type InputFlags } from '../workflow-inputs';
import { scheduleAutoRenewCommand } from './schedule-auto-renew';
import { createMemberSchedule } from '../schedule-create';

type Out = (line: string) => void;

export interface ScheduleCreateOptions extends InputFlags, ScheduleFlags {
  taskQueue?: string;
  paused?: boolean;
  note?: string;
}

/** Runs the command with a client; every schedule error becomes a sentence about `scheduleId`. */
async function withSchedules(scheduleId: string, fn: (client: Client) => Promise<void>): Promise<void> {
  await withStarter(async ({ client }) => {
    await fn(client).catch((err: unknown) => {
      throw toScheduleCliError(err, scheduleId);
    });
  });
}

/** A scheduled run without budget ends Skipped (a success) unless the input says otherwise. */
export const SCHEDULE_INPUT_DEFAULTS = { onInsufficient: 'skip' };

export async function scheduleCreateCommand(scheduleId: string, opts: ScheduleCreateOptions, out: Out): Promise<void> {
  // `schedule create autoRenew --member M --before 72h`: runs autoRenew itself, not a budgetGatedJob.
  if (scheduleId === WorkflowType.autoRenew) return scheduleAutoRenewCommand(opts, out);
  // Everything is checked before connecting: nothing is created from a bad command line.
  const spec = scheduleSpec(opts);
  const policies = schedulePolicies(opts);
  const input = buildWorkflowInput(WorkflowType.budgetGatedJob, opts, SCHEDULE_INPUT_DEFAULTS) as BudgetGatedJobInput;
  await createMemberSchedule(
    {
      scheduleId,
      spec,
      policies,
      workflowType: WorkflowType.budgetGatedJob,
      input,
      flags: opts,
      eachRun: (taskQueue) =>
        `Each run is a budgetGatedJob (${input.job.workflowType}) for member ${input.memberId} on task queue ` +
        `${taskQueue}, ${input.onInsufficient ?? 'fail'} without budget.`,
    },
    out,
  );
}

export async function scheduleListCommand(out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    let n = 0;
    out(`${'SCHEDULE ID'.padEnd(36)} ${'SPEC'.padEnd(28)} ${'PAUSED'.padEnd(6)} ${'NEXT RUN'.padEnd(20)} RECENT`);
    // Listing is eventually consistent: a schedule created a moment ago may show up a moment later.
    for await (const s of client.schedule.list()) {
      const next = s.state.paused ? undefined : s.info.nextActionTimes[0];
      out(
        `${s.scheduleId.padEnd(36)} ${describeScheduleSpec(s.spec).padEnd(28)} ${(s.state.paused ? 'yes' : 'no').padEnd(6)} ` +
          `${(next ? isoSeconds(next) : '-').padEnd(20)} ${s.info.recentActions.length}`,
      );
      n++;
    }
    if (n === 0) out('(no schedules)');
  });
}

/** Where a run the schedule started stands: its outcome once closed, its progress while running. */
async function runState(client: Client, run: ScheduleExecutionResult): Promise<RunState> {
  const { workflowId, firstExecutionRunId } = run.action.workflow;
  const handle = client.workflow.getHandle(workflowId, firstExecutionRunId);
  const described = await handle.describe().catch(() => undefined);
  if (!described) return { status: 'NOT_FOUND' };
  const status = described.status.name;
  if (status === 'RUNNING') {
    const progress = await handle.query(budgetJobProgressQuery).catch(() => undefined);
    return { status, progressStatus: progress?.status };
  }
  try {
    return { status: 'COMPLETED', result: await handle.result() };
  } catch (err) {
    const cause = err instanceof Error ? rootCause(err) : undefined;
    const type = cause instanceof ApplicationFailure && cause.type ? ` [${cause.type}]` : '';
    const label = status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, ' ');
    return { status, failure: status === 'FAILED' && cause ? `Failed: ${cause.message}${type}` : label };
  }
}

export async function scheduleDescribeCommand(scheduleId: string, out: Out): Promise<void> {
  await withSchedules(scheduleId, async (client) => {
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
    if (d.info.recentActions.length === 0) {
      out('  recent runs: none yet');
      return;
    }
    out('  recent runs:');
    // Each run's outcome is in its own result: fetched together, printed in the order they started.
    const states = await Promise.all(d.info.recentActions.map((run) => runState(client, run)));
    d.info.recentActions.forEach((run, i) => {
      out(`    ${isoSeconds(run.takenAt)}  ${run.action.workflow.workflowId}  ${renderRunState(states[i])}`);
    });
  });
}

export async function schedulePauseCommand(
  scheduleId: string,
  opts: { note?: string },
  pause: boolean,
  out: Out,
): Promise<void> {
  await withSchedules(scheduleId, async (client) => {
    const handle = client.schedule.getHandle(scheduleId);
    if (pause) {
      await handle.pause(opts.note ?? 'Paused with the platform-ops starter.');
      out(`Paused schedule ${scheduleId}; runs already started go on.`);
      return;
    }
    await handle.unpause(opts.note ?? 'Unpaused with the platform-ops starter.');
    const next = (await handle.describe()).info.nextActionTimes[0];
    out(`Unpaused schedule ${scheduleId}; next run: ${next ? isoSeconds(next) : 'none'}.`);
  });
}

export async function scheduleTriggerCommand(scheduleId: string, opts: { overlap?: string }, out: Out): Promise<void> {
  const override = opts.overlap === undefined ? undefined : overlapPolicy(opts.overlap);
  await withSchedules(scheduleId, async (client) => {
    const handle = client.schedule.getHandle(scheduleId);
    // Without --overlap, the schedule's own policy (the client alone would allow any overlap).
    const overlap = override ?? (await handle.describe()).policies.overlap;
    await handle.trigger(overlap);
    out(`Triggered schedule ${scheduleId}: a run starts now, as overlap ${overlapName(overlap)} allows.`);
  });
}

export async function scheduleDeleteCommand(scheduleId: string, out: Out): Promise<void> {
  await withSchedules(scheduleId, async (client) => {
    await client.schedule.getHandle(scheduleId).delete();
    out(`Deleted schedule ${scheduleId}; runs it started go on.`);
  });
}
