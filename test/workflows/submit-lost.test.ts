// A submit attempt that the server handed out but no worker ran: an overloaded server can record an
// activity as started while its answer to the worker's poll is lost, and the attempt then times out
// like a lost worker. Without the sending mark it was never sent, so it is sent again, and paid once.
// The attempt's start-to-close timeout is 2 minutes (PLATFORM_ATTEMPT_MS): this test waits it out.
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadDataConverter, type MediaGenerationInput, quotaTaskQueue, WorkflowType } from '@platform-ops/client';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, quietRuntime, uniqueId, withClient, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());

interface Paid {
  paid: { byRoute: Record<string, Record<string, number>> };
}

it('sends again, once, a submit attempt the server recorded as started that no worker ever ran', async () => {
  quietRuntime();
  const taskQueue = `submit-lost-${uniqueId('q').slice(-8)}`;
  const prompt = `a lighthouse at dusk ${taskQueue} [emulator:duration=2000]`;
  const input: MediaGenerationInput = {
    operation: 'text-to-video',
    request: { prompt, duration: 5 },
    keepOutputs: false,
    submission: { backoffInitialMs: 100, backoffMaxMs: 500 },
  };
  const workflowId = uniqueId('submit-lost');
  const address = testEnv('temporalAddress');
  const namespace = testEnv('temporalNamespace');

  // The attempt's task goes to a poll whose answer nobody reads: to the server it started, no worker has it.
  // Only the workflow's own queue is polled meanwhile, by a worker with the workflows and no activities.
  const started = await withClient(async (client) => {
    const lost = client.connection.withDeadline(Date.now() + 60_000, () =>
      client.workflowService.pollActivityTaskQueue({
        namespace,
        taskQueue: { name: quotaTaskQueue(taskQueue, 'text-to-video') },
        identity: 'a poll whose answer was lost',
      }),
    );
    const connection = await NativeConnection.connect({ address });
    try {
      const workflowsOnly = await Worker.create({
        connection,
        namespace,
        taskQueue,
        workflowBundle: { codePath: testEnv('workflowBundle') },
        dataConverter: loadDataConverter(),
      });
      return await workflowsOnly.runUntil(async () => {
        const at = Date.now();
        await client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
          taskQueue,
          workflowId,
          args: [input],
        });
        const task = await lost;
        expect(task.activityType?.name).toBe('submitMediaTask');
        return at;
      });
    } finally {
      await connection.close();
    }
  });
  expect((await emulator.admin<Paid>('GET', '/counters')).paid.byRoute.submitTextToVideo?.[prompt]).toBeUndefined();

  // Now the whole worker polls: the lost attempt times out, was never sent, and is sent again.
  await withWorker(
    'submit-lost',
    async ({ client }) => {
      const result = await client.workflow.getHandle<typeof mediaGeneration>(workflowId).result();
      expect(Date.now() - started).toBeGreaterThanOrEqual(120_000);
      expect(result.submissions.map((s) => s.outcome)).toEqual(['refused', 'accepted']);
      expect(result.submissions[0].error?.message).toBe('the submit attempt timed out before it was sent');
      expect(result.possibleDuplicates).toBe(0);
      const paid = (await emulator.admin<Paid>('GET', '/counters')).paid.byRoute.submitTextToVideo;
      expect(paid[prompt]).toBe(1);
    },
    { taskQueue, platform: emulatorPlatform(emulator.url) },
  );
}, 240_000);
