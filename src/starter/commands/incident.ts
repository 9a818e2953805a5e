// `incident pause-polling` and `resume-polling`: stop the waiting polls of running workflows while the
// platform is in trouble (or its read quota is needed elsewhere), and start them again after. A poll
// is retry-as-poll (src/activities/retries.ts): paused between attempts, it makes no request until it
// is unpaused, and the workflow waits without failing. The server has no batch operation that pauses
// activities, so each workflow's pending polls are paused one by one, a few workflows at a time.
// The group's actions on many runs by query: bulk.ts (reset, cancel) and rerun.ts (rerun-failed), beside this file.
import { randomUUID } from 'node:crypto';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { Command } from 'commander';
import type { Activities as BatchActivities } from '../../operations/batchJob/activities';
import type { Activities as InstanceActivities } from '../../operations/instances/activities';
import type { Activities as MediaActivities } from '../../operations/mediaGeneration/activities';
import { CliError, ExitCode, plural, withStarter, type Out } from '../../cli/command';
import { addBulkCommands } from './bulk';
import { addRerunCommand } from './rerun';

/** The retry-as-poll activity types: the waits that make platform reads. */
export const POLL_ACTIVITY_TYPES = ['pollTaskResult', 'pollBatch', 'pollInstanceStatus'] satisfies (
  keyof MediaActivities | keyof BatchActivities | keyof InstanceActivities
)[];

/**
 * Workflows described and paused at once: each costs two or three frontend requests, far below the
 * namespace's rate limit, so a sweep never crowds out the workers' own calls.
 */
const IN_FLIGHT = 8;

/** gRPC NOT_FOUND: the poll (or its workflow) ended between the describe and the pause. */
const NOT_FOUND = 5;

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
  const runs = client.workflow.list({ query })[Symbol.asyncIterator]();
  let done = 0;
  const one = async (workflowId: string, runId: string) => {
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
      const ok = await sent.then(
        () => true,
        (err: unknown) => {
          if (isGrpcServiceError(err) && (err.code as number) === NOT_FOUND) return false;
          throw err;
        },
      );
      if (!ok) continue;
      done++;
      out(`${pause ? 'Paused' : 'Resumed'} ${type} (activity ${a.activityId}) of ${workflowId}`);
    }
  };
  // A few runners share the one listing: each takes the next workflow when it is free.
  const runner = async () => {
    for (let next = await runs.next(); !next.done; next = await runs.next()) {
      await one(next.value.workflowId, next.value.runId);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, runner));
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
