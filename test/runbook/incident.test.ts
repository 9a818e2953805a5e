// The runbook's incident recipe (docs/operations.md): pausing the polls of running workflows stops
// their platform reads, and resuming them starts the reads again; by the starter's pair of commands
// across a task queue, and by the Temporal CLI for one workflow and one activity type.
import { type MediaGenerationInput, mediaProgressQuery, WorkflowType } from '@platform-ops/client';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { emulatorAdmin } from '../helpers/emulator';
import { runStarter, waitFor } from '../helpers/processes';
import { temporalCli, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const pollsOf = async (taskId: string) =>
  (await emulatorAdmin<{ polls: { byTask: Record<string, number> } }>(testEnv('emulatorUrl'), 'GET', '/counters')).polls
    .byTask[taskId] ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A generation that runs for a minute, polled as often as the server retries (about once a second): its task id once the first polls are in. */
async function polling(ctx: TemporalTestContext) {
  const input: MediaGenerationInput = {
    operation: 'text-to-video',
    request: { prompt: 'a long take [emulator:duration=600000]' },
    polling: { minIntervalMs: 300, maxIntervalMs: 300 },
    keepOutputs: false,
  };
  const handle = await ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId('incident'),
    args: [input],
  });
  await waitFor(async () => (await handle.query(mediaProgressQuery)).taskId !== undefined, 20_000, 'the submit');
  const { taskId } = await handle.query(mediaProgressQuery);
  await waitFor(async () => (await pollsOf(taskId!)) >= 2, 20_000, 'the first polls');
  return { handle, taskId: taskId! };
}

/** The polls each task gets during `ms`, counted after a second for an attempt already under way. */
async function pollsDuring(taskIds: string[], ms: number): Promise<number[]> {
  await sleep(1_000);
  const before = await Promise.all(taskIds.map(pollsOf));
  await sleep(ms);
  return Promise.all(taskIds.map(async (id, i) => (await pollsOf(id)) - before[i]));
}

describe('runbook: pause polling in an incident', () => {
  it('incident pause-polling stops every poll of the task queue, and resume-polling starts them again', () =>
    withWorker('incident', async (ctx) => {
      const runs = await Promise.all([polling(ctx), polling(ctx)]);
      const taskIds = runs.map((r) => r.taskId);

      const paused = await runStarter(['incident', 'pause-polling', '--reason', 'test incident'], ctx.taskQueue);
      expect(paused.stderr).toBe('');
      expect(paused.code).toBe(0);
      expect(paused.stdout).toContain('Paused pollTaskResult (activity');
      for (const { handle } of runs) expect(paused.stdout).toContain(`of ${handle.workflowId}`);
      expect(paused.stdout).toContain(`Paused 2 polls of the workflows matching: TaskQueue = '${ctx.taskQueue}'`);
      expect(await pollsDuring(taskIds, 4_000)).toEqual([0, 0]);
      for (const { handle } of runs) expect((await handle.describe()).status.name).toBe('RUNNING');

      // Already paused: a second sweep finds nothing to do.
      const again = await runStarter(['incident', 'pause-polling'], ctx.taskQueue);
      expect(again.stdout).toContain('Paused 0 polls');

      const resumed = await runStarter(['incident', 'resume-polling'], ctx.taskQueue);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('Resumed 2 polls');
      const after = await pollsDuring(taskIds, 2_000);
      for (const n of after) expect(n).toBeGreaterThan(0);
      await Promise.all(runs.map((r) => r.handle.cancel()));
    }));

  it.each(['paused', 'cancelled'] as const)(
    "a poll waiting in its attempt makes no read at the wait's end once its activity was %s",
    (how) =>
      withWorker(`incident-wait-${how}`, async (ctx) => {
        // A 20 s task: the submit's first look plans the next read about 10 s on, waited in the poll's attempt.
        const input: MediaGenerationInput = {
          operation: 'text-to-video',
          request: { prompt: 'a short take [emulator:duration=20000]' },
          keepOutputs: false,
        };
        const handle = await ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
          taskQueue: ctx.taskQueue,
          workflowId: uniqueId(`incident-wait-${how}`),
          args: [input],
        });
        await waitFor(async () => (await handle.query(mediaProgressQuery)).taskId !== undefined, 20_000, 'the submit');
        const { taskId } = await handle.query(mediaProgressQuery);
        const inAttempt = async () =>
          ((await handle.describe()).raw.pendingActivities ?? []).some(
            (a) => a.activityType?.name === 'pollTaskResult',
          );
        await waitFor(inAttempt, 10_000, 'the poll waiting in its attempt');
        const before = await pollsOf(taskId!);
        if (how === 'paused') {
          await temporalCli([
            'activity',
            'pause',
            '--workflow-id',
            handle.workflowId,
            '--activity-type',
            'pollTaskResult',
          ]);
        } else await handle.cancel();
        await sleep(14_000);
        expect(await pollsOf(taskId!)).toBe(before);
        if (how === 'paused') {
          await temporalCli([
            'activity',
            'unpause',
            '--workflow-id',
            handle.workflowId,
            '--activity-type',
            'pollTaskResult',
          ]);
          expect((await handle.result()).taskId).toBe(taskId);
        }
      }),
    60_000,
  );

  it('refuses a --types entry that is not a poll, pausing nothing', async () => {
    const run = await runStarter(['incident', 'pause-polling', '--types', 'pollTaskResult,submitTask']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--types: submitTask is not a poll');
  });

  it('temporal activity pause/unpause by type pauses one workflow; the paused runs are found by query', () =>
    withWorker('incident-cli', async (ctx) => {
      const { handle, taskId } = await polling(ctx);
      const id = handle.workflowId;
      await temporalCli(['activity', 'pause', '--workflow-id', id, '--activity-type', 'pollTaskResult']);
      expect(await pollsDuring([taskId], 3_000)).toEqual([0]);

      const pausedQuery = `TemporalPauseInfo="property:activityType=pollTaskResult" AND TaskQueue="${ctx.taskQueue}"`;
      await waitFor(
        async () => (await temporalCli(['workflow', 'list', '--query', pausedQuery])).stdout.includes(id),
        10_000,
        'the paused run listed',
      );
      await temporalCli(['activity', 'unpause', '--workflow-id', id, '--activity-type', 'pollTaskResult']);
      expect((await pollsDuring([taskId], 2_000))[0]).toBeGreaterThan(0);
      await handle.cancel();
    }));
});
