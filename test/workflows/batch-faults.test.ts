// batchJob when creating the batch goes wrong, on an emulator of this file's own (faults are global
// per route): a create that timed out after reaching the platform is found, not made twice, even when
// it lands after the retry started; a cancel while creating leaves no batch running.
import { WorkflowFailedError } from '@temporalio/client';
import type { batchJob } from '../../src/operations/batchJob/workflows';
import { type BatchJobInput, batchProgressQuery, WorkflowType } from '@platform-ops/client';
import { WORKFLOW_ID_METADATA_KEY } from '../../src/operations/batchJob/activities';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { waitFor } from '../helpers/processes';
import { emulatorPlatform, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());

afterEach(() => emulator.admin('DELETE', '/faults'));

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

  it('does not duplicate a batch whose create lands after the retry has started', () =>
    withWorker(
      'batch-late-create',
      async ({ client, taskQueue }) => {
        // The client gives up after 5 s, the retry starts a second later, and the platform makes the
        // batch only at 9 s: the retry must look until no create it sent can land, then find it.
        await emulator.admin('PUT', '/faults', { routes: { createBatch: { latencyMs: 9_000, count: 1 } } });
        const workflowId = uniqueId('batch-late-create');
        const result = await client.workflow.execute<typeof batchJob>(WorkflowType.batchJob, {
          taskQueue,
          workflowId,
          args: [quickBatch()],
        });
        expect(result).toMatchObject({ outcome: 'Completed', createAttempts: 2 });
        const mine = (await emulator.client().listBatches({ limit: 100 })).data.filter(
          (b) => b.metadata?.[WORKFLOW_ID_METADATA_KEY] === workflowId,
        );
        expect(mine).toHaveLength(1);
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 5_000 }) },
    ));

  it('cancelled while creating, it lets the create answer and cancels the batch it made', () =>
    withWorker(
      'batch-cancel-creating',
      async ({ client, taskQueue }) => {
        await emulator.admin('PUT', '/faults', { routes: { createBatch: { latencyMs: 3_000, count: 1 } } });
        const workflowId = uniqueId('batch-cancel-creating');
        const handle = await client.workflow.start<typeof batchJob>(WorkflowType.batchJob, {
          taskQueue,
          workflowId,
          args: [{ ...quickBatch(), metadata: { emulator_validating_ms: '100', emulator_per_request_ms: '60000' } }],
        });
        await waitFor(async () => (await handle.query(batchProgressQuery)).status === 'CREATING', 10_000, 'CREATING');
        await handle.cancel();
        await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
        const mine = (await emulator.client().listBatches({ limit: 100 })).data.filter(
          (b) => b.metadata?.[WORKFLOW_ID_METADATA_KEY] === workflowId,
        );
        expect(mine.map((b) => b.status)).toEqual(['CANCELLED']);
        await recordHistory(handle, 'batchJob-cancelled-while-creating');
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 5_000 }) },
    ));
});

function quickBatch(): BatchJobInput {
  return {
    endpoint: '/v1/chat/completions',
    requests: [chat('a'), chat('b')],
    polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
    metadata: { emulator_validating_ms: '100', emulator_per_request_ms: '100', emulator_finalizing_ms: '100' },
  };
}
