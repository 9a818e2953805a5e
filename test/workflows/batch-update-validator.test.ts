// A workflow unit test WITH MOCKED ACTIVITIES (the real workflow code on the real dev server): the
// cancelBatch Update's validator refuses to cancel a batch that has already finished. Mocks let the
// test hold the workflow in the moment after the batch ended and before it completes.
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { batchProgressQuery, cancelBatchUpdate, loadDataConverter, WorkflowType } from '@platform-ops/client';
import type { batchJob } from '../../src/operations/batchJob/workflows';
import { waitFor } from '../helpers/processes';
import { quietRuntime } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

describe('cancelBatch Update validator (mocked activities)', () => {
  it('refuses to cancel a batch that has finished, and cancels nothing', async () => {
    quietRuntime();
    const address = testEnv('temporalAddress');
    const taskQueue = `batch-validator-${randomUUID().slice(0, 8)}`;
    let release!: () => void;
    const keepingMayEnd = new Promise<void>((resolve) => (release = resolve));
    const cancelCalls: string[] = [];
    const counts = { total: 1, completed: 1, failed: 0 };
    const activities = {
      uploadBatchInput: () => Promise.resolve({ fileId: 'file-1', bytes: 10, totalRequests: 1 }),
      createBatchOnce: () =>
        Promise.resolve({
          batch: {
            id: 'batch-1',
            status: 'VALIDATING',
            inputFileId: 'file-1',
            createdAtMs: Date.now(),
            requestCounts: counts,
          },
          found: false,
          attempt: 1,
          at: Date.now(),
          windowStartAt: Date.now(),
        }),
      pollBatch: () =>
        Promise.resolve({
          terminal: true,
          observation: {
            batchId: 'batch-1',
            status: 'COMPLETED',
            requestCounts: counts,
            outputFileId: 'out-1',
            polls: 1,
            observedAt: Date.now(),
          },
        }),
      cancelPlatformBatch: (batchId: string) => {
        cancelCalls.push(batchId);
        return Promise.reject(new Error('must not be called'));
      },
      keepBatchOutputs: async () => {
        await keepingMayEnd;
        return {
          summary: {
            succeeded: 1,
            failed: 0,
            notRun: 0,
            byErrorCode: {},
            perRequestUri: 'file:///tmp/x',
            sampleFailures: [],
          },
        };
      },
    };
    const nativeConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    try {
      const worker = await Worker.create({
        connection: nativeConnection,
        namespace: testEnv('temporalNamespace'),
        taskQueue,
        workflowBundle: { codePath: testEnv('workflowBundle') },
        activities,
        dataConverter: loadDataConverter(),
      });
      const client = new Client({
        connection,
        namespace: testEnv('temporalNamespace'),
        dataConverter: loadDataConverter(),
      });
      await worker.runUntil(async () => {
        const handle = await client.workflow.start<typeof batchJob>(WorkflowType.batchJob, {
          taskQueue,
          workflowId: `batch-validator-${randomUUID().slice(0, 8)}`,
          args: [{ endpoint: '/v1/chat/completions', inputFileId: 'file-1' }],
        });
        await waitFor(
          async () => (await handle.query(batchProgressQuery)).status === 'KEEPING_OUTPUTS',
          20_000,
          'the batch to have ended',
        );
        const refused = await handle.executeUpdate(cancelBatchUpdate, { args: [{}] }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
        expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toMatch(
          /already finished \(COMPLETED\); there is nothing to cancel/,
        );
        release();
        expect(await handle.result()).toMatchObject({ outcome: 'Completed', status: 'COMPLETED' });
        // A refused Update leaves no trace in the history.
        const history = await handle.fetchHistory();
        expect((history.events ?? []).some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
      });
      expect(cancelCalls).toEqual([]);
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
  });
});
