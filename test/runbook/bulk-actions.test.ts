// The runbook's bulk actions (docs/operations.md#bulk-actions): `incident reset` and `incident cancel` start one
// server batch operation over the runs a query matches and follow it to its end, against the dev server.
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { type MediaGenerationInput, mediaProgressQuery, WorkflowType } from '@platform-ops/client';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { runStarter, waitFor } from '../helpers/processes';
import { uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

/** Generations that run for minutes, polled every 5 s, once each has submitted its task. */
async function running(ctx: TemporalTestContext, n: number): Promise<WorkflowHandleWithFirstExecutionRunId[]> {
  const input: MediaGenerationInput = {
    operation: 'text-to-video',
    request: { prompt: 'a long take [emulator:duration=600000]' },
    polling: { minIntervalMs: 5_000, maxIntervalMs: 5_000 },
    keepOutputs: false,
  };
  const handles = await Promise.all(
    Array.from({ length: n }, () =>
      ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('bulk'),
        args: [input],
      }),
    ),
  );
  for (const h of handles) {
    await waitFor(async () => (await h.query(mediaProgressQuery)).taskId !== undefined, 20_000, 'the submit');
  }
  return handles;
}

const jobIdIn = (stdout: string) => /as batch operation (platform-ops-\w+-[0-9a-f-]{36})\./.exec(stdout)?.[1];

describe('runbook: bulk actions', () => {
  it.each(['last-task', 'first-task'])(
    'incident reset --to %s resets every run the query matches, showing the batch until it completes',
    (to) =>
      withWorker('bulk-reset', async (ctx) => {
        const handles = await running(ctx, 3);
        const query = `TaskQueue = '${ctx.taskQueue}' AND ExecutionStatus = 'Running'`;
        const args = ['incident', 'reset', '--query', query, '--to', to, '--reason', 'test reset'];
        const run = await runStarter(args, ctx.taskQueue);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        const jobId = jobIdIn(run.stdout);
        const point = to.replace('-', ' ');
        expect(run.stdout).toContain(`Resetting 3 runs to their ${point}, as batch operation ${jobId}.`);
        expect(run.stdout).toContain('Ctrl-C stops watching; the batch goes on in the server.');
        expect(run.stdout).toMatch(new RegExp(`Batch ${jobId} running: \\d of 3 reset, 0 failed \\(\\d+s\\)`));
        expect(run.stdout).toContain(`Batch ${jobId} completed: 3 of 3 reset, 0 failed.`);
        for (const h of handles) {
          const now = ctx.client.workflow.getHandle(h.workflowId);
          const { runId, status } = await now.describe();
          expect(runId).not.toBe(h.firstExecutionRunId);
          expect(status.name).toBe('RUNNING');
          const old = await ctx.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).describe();
          expect(old.status.name).toBe('TERMINATED');
          // The reset ends the copied history with a failed workflow task: the first one's is event 4.
          const { events } = await ctx.client.workflow.getHandle(h.workflowId, runId).fetchHistory();
          const resetAt = Number(events!.find((e) => e.workflowTaskFailedEventAttributes)!.eventId);
          if (to === 'first-task') expect(resetAt).toBe(4);
          else expect(resetAt).toBeGreaterThan(4);
        }
        await Promise.all(handles.map((h) => ctx.client.workflow.getHandle(h.workflowId).cancel()));
      }),
  );

  it('incident cancel cancels every running run the query matches', () =>
    withWorker('bulk-cancel', async (ctx) => {
      const handles = await running(ctx, 3);
      const run = await runStarter(['incident', 'cancel', '--query', `TaskQueue = '${ctx.taskQueue}'`], ctx.taskQueue);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const jobId = jobIdIn(run.stdout);
      expect(run.stdout).toContain(`Requesting cancellation of 3 runs, as batch operation ${jobId}.`);
      expect(run.stdout).toContain(`Batch ${jobId} completed: 3 of 3 cancelled, 0 failed.`);
      for (const h of handles) {
        await waitFor(async () => (await h.describe()).status.name === 'CANCELLED', 20_000, 'the run cancelled');
      }
    }));

  it('a query that matches nothing starts no batch', async () => {
    const query = `TaskQueue = '${uniqueId('nothing')}'`;
    const run = await runStarter(['incident', 'cancel', '--query', query]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`No run matches: (${query}) AND ExecutionStatus = 'Running'. Nothing cancelled`);
    expect(run.stdout).not.toContain('batch operation platform-ops');
  });

  it.each([
    [['--query', 'TaskQueue = "q"', '--to', 'middle'], '--to: "middle" is not a reset point (last-task, first-task).'],
    [['--query', ' '], '--query: must not be empty'],
    [['--query', 'TaskQueue = "q"', '--reason', ''], '--reason: must not be empty.'],
    [['--query', 'TaskQueue ='], '--query "TaskQueue =" was refused by Temporal'],
    [[], "required option '--query <visibility query>' not specified"],
  ])('incident reset %j is refused, naming the flag', async (flags, message) => {
    const run = await runStarter(['incident', 'reset', ...flags]);
    expect(run.stderr).toContain(message);
    expect(run.code).toBe(2);
  });
});
