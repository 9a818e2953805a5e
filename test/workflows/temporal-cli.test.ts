// A client that is not TypeScript: the official temporal CLI starts the workflows with JSON input.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowType } from '@platform-ops/client';
import { uniqueId, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const run = promisify(execFile);

describe('workflows started by the temporal CLI with JSON input', () => {
  it.each([
    [WorkflowType.renewInstance, { instanceId: 'inst-cli-1', months: 1 }, { instanceId: 'inst-cli-1', months: 1 }],
    [
      WorkflowType.evaluateDecision,
      { state: 'hello', questions: [{ kind: 'yes_no', question: 'Is it a greeting?' }] },
      { answers: [expect.objectContaining({ question: 'Is it a greeting?' })] },
    ],
  ])('%s', (type, input, expected) =>
    withWorker(`cli-${type}`, async ({ client, taskQueue, address, namespace }) => {
      const workflowId = uniqueId(`cli-${type}`);
      const env = { ...process.env };
      // The CLI reads TEMPORAL_* too: make sure only the flags speak.
      for (const k of Object.keys(env)) if (k.startsWith('TEMPORAL_')) delete env[k];
      await run(
        testEnv('temporalCli'),
        [
          'workflow',
          'start',
          '--address',
          address,
          '--namespace',
          namespace,
          '--task-queue',
          taskQueue,
          '--type',
          type,
          '--workflow-id',
          workflowId,
          '--input',
          JSON.stringify(input),
        ],
        { env },
      );
      const result = await client.workflow.getHandle(workflowId).result();
      expect(result).toMatchObject(expected);
      const { stdout } = await run(
        testEnv('temporalCli'),
        [
          'workflow',
          'describe',
          '--address',
          address,
          '--namespace',
          namespace,
          '--workflow-id',
          workflowId,
          '-o',
          'json',
        ],
        { env },
      );
      expect(stdout).toContain('PlatformOperation');
    }),
  );
});
