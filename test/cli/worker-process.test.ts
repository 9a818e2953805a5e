// The real worker entry point as a process: structured logs, Prometheus metrics, a workflow run
// through it, graceful shutdown on SIGTERM, and never the API key in its output.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { loadDataConverter, WorkflowType } from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { getFreePort } from '../../src/devserver/processes';
import { cleanEnv, runNode, startNode, waitFor, workerProcessEnv } from '../helpers/processes';
import { testEnv } from '../setup/shared';

describe('worker process', () => {
  it('logs JSON, serves metrics, runs workflows and drains on SIGTERM', async () => {
    const metricsPort = await getFreePort();
    const taskQueue = `worker-process-${randomUUID().slice(0, 8)}`;
    const { child, output } = startNode('worker.js', workerProcessEnv(taskQueue, metricsPort));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => output().includes('Worker started'), 60_000, 'the worker to start');
      const started = output()
        .split('\n')
        .find((l) => l.includes('Worker started'))!;
      expect(JSON.parse(started)).toMatchObject({ level: 'INFO', message: 'Worker started', taskQueue });

      const connection = await Connection.connect({ address: testEnv('temporalAddress') });
      try {
        const client = new Client({
          connection,
          namespace: testEnv('temporalNamespace'),
          dataConverter: loadDataConverter(),
        });
        const result = await client.workflow.execute(WorkflowType.evaluateDecision, {
          taskQueue,
          workflowId: `worker-process-${randomUUID().slice(0, 8)}`,
          args: [{ state: 'text', questions: [{ kind: 'yes_no', question: 'ok?' }] }],
        });
        expect(result).toHaveProperty('answers');
      } finally {
        await connection.close();
      }

      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/temporal_/);
      expect(metrics).toContain(taskQueue);
      // Our own, on the same endpoint: platform calls by operation and status, their latency, the pace.
      const series = (name: string, labels: string[]) =>
        new RegExp(`${name}\\{${labels.map((l) => `(?=[^}]*${l})`).join('')}[^}]*\\} [1-9]`);
      expect(metrics).toMatch(series('platform_calls(_total)?', ['operation="decisionEvaluation"', 'status="200"']));
      expect(metrics).toMatch(series('platform_calls(_total)?', ['operation="listQuotas"', 'status="200"']));
      expect(metrics).toMatch(series('platform_call_latency_count', ['operation="decisionEvaluation"']));
      expect(metrics).toMatch(series('platform_pacing_rps', ['operation="text-to-video"']));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output()).not.toContain(DEV_API_KEY);
  });

  it('refuses to start on a key the platform refuses (the first call), naming no secret', async () => {
    const badKey = `sk-not-a-key-${randomUUID()}`;
    const result = await runNode(
      'worker.js',
      [],
      cleanEnv({
        TEMPORAL_ADDRESS: testEnv('temporalAddress'),
        TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
        PLATFORM_BASE_URL: testEnv('emulatorUrl'),
        PLATFORM_API_KEY: badKey,
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("refused the worker's API key on its first call (GET /v1/models: HTTP 401");
    expect(result.stderr).toContain('PLATFORM_API_KEY');
    expect(result.stdout + result.stderr).not.toContain(badKey);
    expect(result.stdout).not.toContain('Worker started');
  });
});
