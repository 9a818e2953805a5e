// batchJob when creating the batch goes wrong, on an emulator of this file's own (faults are global
// per route): a create that timed out after reaching the platform is found, not made twice.
import type { batchJob } from '../../src/workflows';
import { WorkflowType } from '../../src/api';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, uniqueId, withWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());

const chat = (id: string) => ({
  custom_id: id,
  body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: id }] },
});

describe('batchJob create once', () => {
  it('does not duplicate a batch whose create timed out after reaching the platform', () =>
    withWorker(
      'batch-ambiguous',
      async ({ client, taskQueue }) => {
        // The emulator creates the batch but answers after 1.5 s; the client gives up after 0.6 s.
        await emulator.admin('PUT', '/faults', { routes: { createBatch: { latencyMs: 1_500, count: 1 } } });
        const platform = emulator.client();
        const before = (await platform.listBatches({ limit: 100 })).data.length;
        const result = await client.workflow.execute<typeof batchJob>(WorkflowType.batchJob, {
          taskQueue,
          workflowId: uniqueId('batch-ambiguous'),
          args: [
            {
              endpoint: '/v1/chat/completions',
              requests: [chat('a'), chat('b')],
              polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
              metadata: {
                emulator_validating_ms: '100',
                emulator_per_request_ms: '100',
                emulator_finalizing_ms: '100',
              },
            },
          ],
        });
        expect(result.outcome).toBe('Completed');
        expect(result.createAttempts).toBe(2);
        const after = (await platform.listBatches({ limit: 100 })).data;
        expect(after.length - before).toBe(1);
        expect(after.filter((b) => b.input_file_id === result.inputFileId)).toHaveLength(1);
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 600 }) },
    ));
});
