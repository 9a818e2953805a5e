// A workflow task that fails with an error carrying 200 KB, on a worker process whose Runtime is installed as the
// worker's (src/process-entry.ts): Core's "Failing workflow task" line and the SDK's own reach the log within 8 KB,
// naming the run, and the shortened lines are counted on the worker's metrics.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getFreePort } from '../../src/devserver/processes';
import { MAX_LOG_LINE_BYTES } from '../../src/logging';
import { waitFor } from '../helpers/processes';
import { uniqueId, withClient } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const lib = (file: string) => JSON.stringify(path.resolve(__dirname, '../../lib/src', file));

// A workflow that fails its task (a plain Error, not an ApplicationFailure) with a message as long as a history.
const WORKFLOW = `exports.failsItsTask = async () => { throw new Error('The task fails: ' + 'h'.repeat(200000)); };`;

// The worker process: installRuntime as src/worker.ts calls it, then a worker of the workflow above.
const workerScript = (workflows: string) => `
const { Worker, NativeConnection } = require('@temporalio/worker');
const { installRuntime } = require(${lib('process-entry.js')});
const { loadWorkerSettings } = require(${lib('config/settings.js')});
installRuntime(loadWorkerSettings(process.env));
(async () => {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE,
    taskQueue: process.env.TASK_QUEUE,
    workflowsPath: ${JSON.stringify(workflows)},
  });
  await worker.run();
})();
`;

it('keeps every line of a worker whose workflow task fails with 200 KB under 8 KB, naming the run, and counts it', async () => {
  // Inside the project, so that the bundler finds the SDK's packages from the workflow's folder.
  const cache = path.resolve(__dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'log-bound-'));
  writeFileSync(path.join(dir, 'workflows.js'), WORKFLOW);
  writeFileSync(path.join(dir, 'worker.js'), workerScript(path.join(dir, 'workflows.js')));
  const metricsPort = await getFreePort();
  const taskQueue = uniqueId('log-bound');
  const child = spawn(process.execPath, [path.join(dir, 'worker.js')], {
    cwd: path.resolve(__dirname, '../..'),
    env: {
      PATH: process.env.PATH,
      NODE_PATH: path.resolve(__dirname, '../../node_modules'),
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
      TASK_QUEUE: taskQueue,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'INFO',
      METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  try {
    const workflowId = uniqueId('fails-its-task');
    await withClient(async (client) => {
      await client.workflow.start('failsItsTask', { taskQueue, workflowId, workflowTaskTimeout: '10s' });
      await waitFor(
        () => {
          if (child.exitCode !== null)
            throw new Error(`The worker exited (${child.exitCode}): ${output.slice(-2_000)}`);
          return Promise.resolve(output.includes('Failing workflow task'));
        },
        60_000,
        'the task failure in the log',
      );
      await waitFor(
        async () => {
          const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
          return /^log_lines_cut\{[^}]*reason="too_long"[^}]*\} [1-9]/m.test(text);
        },
        20_000,
        'log_lines_cut on the metrics',
      );
      await client.workflow.getHandle(workflowId).terminate('test over');
    });
    const lines = output.split('\n').filter((l) => l !== '');
    const failing = lines.find((l) => l.includes('Failing workflow task'));
    expect(failing).toBeDefined();
    expect(failing).toContain('more characters cut');
    expect(output).not.toContain('h'.repeat(MAX_LOG_LINE_BYTES));
    expect(Math.max(...lines.map((l) => Buffer.byteLength(l)))).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
  } catch (err) {
    throw new Error(`${String(err)}\nThe worker's log:\n${output.slice(-4_000)}`);
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // The worker drains for up to its shutdown grace; this test has nothing left for it to finish.
      const killing = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killing);
    }
  }
}, 120_000);
