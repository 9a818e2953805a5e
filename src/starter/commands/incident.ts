// `incident pause-polling` and `resume-polling`: a paused poll (retry-as-poll, src/activities/retries.ts) makes no
// platform request until it is unpaused, and its workflow waits without failing. The server has no batch operation
// that pauses activities, so each workflow's pending polls are paused one by one.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import type { Activities as BatchActivities } from '../../operations/batchJob/activities';
import type { Activities as InstanceActivities } from '../../operations/instances/activities';
import type { Activities as MediaActivities } from '../../operations/mediaGeneration/activities';
import { CliError, ExitCode, isGrpcStatus, plural, withStarter, type Out } from '../../cli/command';
import { addBulkCommands, forEachRun } from './bulk';
import { addRerunCommand } from './rerun';

const POLL_ACTIVITY_TYPES = ['pollTaskResult', 'pollBatch', 'pollInstanceStatus'] satisfies (
  keyof MediaActivities | keyof BatchActivities | keyof InstanceActivities
)[];

interface IncidentOptions {
  query?: string;
  types: string;
  reason: string;
}

async function sweep(client: Client, pause: boolean, opts: IncidentOptions, taskQueue: string, out: Out) {
  const types = opts.types.split(',').map((t) => t.trim());
  const unknown = types.filter((t) => !(POLL_ACTIVITY_TYPES as string[]).includes(t));
  if (unknown.length > 0) {
    throw new CliError(
      `--types: ${unknown.join(', ')} is not a poll (${POLL_ACTIVITY_TYPES.join(', ')}).`,
      ExitCode.Usage,
    );
  }
  const query = opts.query ?? `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
  const identity = `platform-ops-starter incident ${pause ? 'pause' : 'resume'}`;
  let done = 0;
  await forEachRun(client, query, async ({ workflowId, runId }) => {
    const { raw } = await client.workflow.getHandle(workflowId, runId).describe();
    for (const a of raw.pendingActivities ?? []) {
      const type = a.activityType?.name ?? '';
      if (!types.includes(type) || Boolean(a.paused) === pause) continue;
      const request = {
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        id: a.activityId,
        identity,
      };
      const sent = pause
        ? client.workflowService.pauseActivity({ ...request, reason: opts.reason, requestId: randomUUID() })
        : client.workflowService.unpauseActivity(request);
      // NOT_FOUND: the poll (or its workflow) ended between the describe and the pause.
      try {
        await sent;
      } catch (err) {
        if (isGrpcStatus(err, 'NotFound')) continue;
        throw err;
      }
      done++;
      out(`${pause ? 'Paused' : 'Resumed'} ${type} (activity ${a.activityId}) of ${workflowId}`);
    }
  });
  out(`${pause ? 'Paused' : 'Resumed'} ${plural(done, 'poll')} of the workflows matching: ${query}`);
}

export function addIncidentCommands(program: Command, out: Out): void {
  const incident = program.command('incident').description('act on many workflows at once during an incident');
  for (const pause of [true, false]) {
    incident
      .command(pause ? 'pause-polling' : 'resume-polling')
      .description(
        pause
          ? 'pause the waiting polls: no platform reads until resume-polling (new polls are not paused)'
          : 'resume the polls pause-polling paused; each polls when its retry delay is over',
      )
      .option('--query <visibility query>', "which workflows (default: this task queue's running ones)")
      .option('--types <list>', 'comma-separated poll activity types', POLL_ACTIVITY_TYPES.join(','))
      .option('--reason <text>', 'why, recorded with the pause', 'platform incident')
      .action((opts: IncidentOptions) =>
        withStarter(({ client, settings }) => sweep(client, pause, opts, settings.taskQueue, out)),
      );
  }
  addBulkCommands(incident, out);
  addRerunCommand(incident, out);
}
