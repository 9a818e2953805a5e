// The starter CLI as users run it: starts workflows by name from flags or JSON, waits, describes,
// lists and cancels, with exit codes that mean something and errors that read as sentences.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowType } from '@platform-ops/client';
import { cleanEnv, runNode } from '../helpers/processes';
import { uniqueId, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const env = (taskQueue: string) =>
  cleanEnv({
    TEMPORAL_ADDRESS: testEnv('temporalAddress'),
    TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  });
const starter = (args: string[], taskQueue: string) => runNode('starter.js', args, env(taskQueue));

describe('starter CLI', () => {
  it('starts a workflow from flags, waits, then describes and lists it', () =>
    withWorker('starter', async ({ taskQueue }) => {
      const id = uniqueId('starter-renew');
      const run = await starter(
        ['start', WorkflowType.renewInstance, '--instance-id', 'inst-cli-2', '--months', '2', '--id', id, '--wait'],
        taskQueue,
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Started renewInstance as workflow ${id}`);
      expect(run.stdout).toMatch(/"alreadyApplied": false/);

      const described = await starter(['describe', id], taskQueue);
      expect(described.code).toBe(0);
      expect(described.stdout).toContain('status:     COMPLETED');
      expect(described.stdout).toMatch(/PlatformStatus\s+RENEWED/);

      const listed = await starter(['list', '--query', `WorkflowId = '${id}'`], taskQueue);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(id);
    }));

  it('starts once per --idempotency-key: a repeat names the run it started and starts nothing', () =>
    withWorker('starter-idem', async ({ taskQueue }) => {
      const key = uniqueId('order');
      const args = ['start', WorkflowType.renewInstance, '--instance-id', 'inst-cli-4', '--months', '1'];
      const first = await starter([...args, '--idempotency-key', key, '--wait'], taskQueue);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`Started renewInstance as workflow renewInstance:${key}.`);

      const again = await starter([...args, '--idempotency-key', key], taskQueue);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`Already started for this idempotency key: workflow renewInstance:${key}`);

      const other = await starter([...args.slice(0, -1), '2', '--idempotency-key', key], taskQueue);
      expect(other.code).toBe(5);
      expect(other.stderr).toMatch(/Idempotency key already used for a different request/);
    }));

  it('runs mediaGeneration from flags with a progress display, and says where the outputs were kept', () =>
    withWorker('starter-media', async ({ taskQueue }) => {
      const run = await starter(
        [
          'start',
          WorkflowType.mediaGeneration,
          '--prompt',
          'a lighthouse [emulator:duration=15000]',
          '--sound',
          '--wait',
        ],
        taskQueue,
      );
      expect(run.code).toBe(0);
      // Not a terminal: one progress line per change of status or percent, on stderr.
      expect(run.stderr).toMatch(/PROCESSING\s+\[#*-*\]\s+\d+%/);
      expect(run.stdout).toMatch(/"operation": "text-to-video"/);
      expect(run.stdout).toMatch(/Outputs kept:\n {2}video {2}file:\/\/\S+ {2}\(\d+ bytes, sha256 [0-9a-f]{12}\)/);
      expect(run.stdout).toMatch(/ {2}audio {2}file:\/\//);
    }));

  it('runs batchJob from a JSONL file with progress, then refuses cancel-batch once it has finished', () =>
    withWorker('starter-batch', async ({ taskQueue }) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'starter-batch-'));
      const file = path.join(dir, 'requests.jsonl');
      const line = (id: string) =>
        JSON.stringify({ custom_id: id, body: { model: 'deepseek/deepseek-v3', prompt: `say ${id}` } });
      writeFileSync(file, `${line('a')}\n${line('b')}\n`);
      const id = uniqueId('starter-batch');
      const run = await starter(
        ['start', WorkflowType.batchJob, '--file', file, '--endpoint', '/v1/completions', '--id', id, '--wait'],
        taskQueue,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/"outcome": "Completed"/);
      expect(run.stdout).toMatch(/Batch Completed: 2 completed, 0 failed, 2 in all\.\n {2}output {7}file:\/\//);
      expect(run.stderr).toMatch(/\[#*-*\]/);

      const refused = await starter(['cancel-batch', id], taskQueue);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/has already finished, so it takes no more requests/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }));

  it('starts from --input JSON, and exits 1 with the failure as a sentence when the workflow fails', () =>
    withWorker('starter-fail', async ({ taskQueue }) => {
      const run = await starter(
        ['start', WorkflowType.renewInstance, '--input', '{"instanceId":"inst-does-not-exist","months":1}', '--wait'],
        taskQueue,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^Workflow renewInstance-\w+ failed: .*RESOURCE_NOT_FOUND.* \[NotFound\]\n$/);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }));

  it.each([
    [
      ['start', 'renewInstance', '--instance-id', 'x', '--months', '0'],
      /Invalid renewInstance input: months: must be greater than 0/,
    ],
    [['start', 'renewInstance', '--input', '{bad'], /--input is not valid JSON/],
    [
      ['start', 'noSuchWorkflow'],
      /Unknown workflow "noSuchWorkflow"\. Known workflows: mediaGeneration, batchJob, renewInstance, restartInstance, createInstance, startInstance, stopInstance, deleteInstance, evaluateDecision, budgetGatedJob, billingReport, autoRenew\./,
    ],
    [['start', 'budgetLedger'], /budgetLedger is started by the budget-gated jobs that need it/],
    [
      ['start', 'budgetGatedJob', '--member-id', 'm', '--job', 'nope'],
      /budgetGatedJob needs --job with the job to run: one of mediaGeneration, batchJob, .*, not "nope"\./,
    ],
    [
      ['start', 'budgetGatedJob', '--member-id', 'm', '--job', 'renewInstance', '--instance-id', 'i', '--months', '0'],
      /Invalid budgetGatedJob input: job\.input\.months: must be greater than 0/,
    ],
    [
      [
        'start',
        'budgetGatedJob',
        '--job',
        'renewInstance',
        '--instance-id',
        'i',
        '--months',
        '1',
        '--gate-question',
        'ok?',
      ],
      /memberId: is required; gate\.threshold: is required/,
    ],
    [['start', 'evaluateDecision', '--state', 'x'], /questions: must have at least 1 item/],
    [['list', '--limit', 'abc'], /--limit must be a whole number of at least 1, not "abc"\./],
  ])('refuses %j with exit 2 before starting anything', async (args, message) => {
    const run = await starter(args, 'unused-queue');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('exits 4 for an unknown workflow id, and 3 when Temporal is unreachable', async () => {
    const missing = await starter(['describe', 'no-such-workflow-id'], 'unused-queue');
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe('Workflow no-such-workflow-id was not found.\n');
    const down = await runNode('starter.js', ['list'], cleanEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' }));
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^Cannot reach Temporal at 127\.0\.0\.1:1: /);
  });

  it('cancels a running workflow', () =>
    withWorker('starter-cancel', async ({ taskQueue, client }) => {
      const id = uniqueId('starter-cancel');
      // A restart whose wait outlasts the test: cancelling must end it.
      await client.workflow.start(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: id,
        args: [{ instanceId: 'inst-cli-3', timeoutSeconds: 600, pollInitialSeconds: 60, pollMaxSeconds: 60 }],
      });
      const run = await starter(['cancel', id], taskQueue);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Asked workflow ${id} to cancel.`);
      const err = await client.workflow
        .getHandle(id)
        .result()
        .catch((e: unknown) => e);
      expect(String(err)).toMatch(/cancel/i);
    }));
});
