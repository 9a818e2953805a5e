// The worker process with its receiver in it (WEBHOOK_LISTEN): one generation ends on the shared
// emulator's callback, a forged callback is refused, and the worker's Prometheus endpoint shows the
// callbacks received and rejected and the polls per task (issue 14, "see it"). The secret is never in
// its output.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { loadDataConverter, WorkflowType } from '@platform-ops/client';
import { getFreePort } from '../../src/devserver/processes';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { startNode, waitFor, workerProcessEnv } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const SECRET = 'worker-metrics-test-secret-of-32-characters';

describe('worker process with webhooks', () => {
  it('ends a generation on the callback and counts callbacks and polls per task on /metrics', async () => {
    const [port, metricsPort] = [await getFreePort(), await getFreePort()];
    const taskQueue = `webhook-metrics-${randomUUID().slice(0, 8)}`;
    const { child, output } = startNode(
      'worker.js',
      workerProcessEnv(taskQueue, metricsPort, {
        WEBHOOK_LISTEN: `127.0.0.1:${port}`,
        WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_SECRET: SECRET,
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => output().includes('Worker started'), 60_000, 'the worker to start');
      const connection = await Connection.connect({ address: testEnv('temporalAddress') });
      try {
        const client = new Client({
          connection,
          namespace: testEnv('temporalNamespace'),
          dataConverter: loadDataConverter(),
        });
        const result = await client.workflow.execute<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
          taskQueue,
          workflowId: `webhook-metrics-${randomUUID().slice(0, 8)}`,
          args: [
            {
              operation: 'text-to-video',
              request: { prompt: 'metrics [emulator:duration=3000]' },
              keepOutputs: false,
            },
          ],
        });
        expect(result.polls).toBe(0);
      } finally {
        await connection.close();
      }
      const forged = await fetch(`http://127.0.0.1:${port}/task-callback?workflow=w&generation=1&token=forged`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(forged.status).toBe(401);
      expect(await forged.json()).toMatchObject({ error: 'bad_token' });

      const series = (name: string, labels: string[], value = '[1-9]') =>
        new RegExp(`${name}\\{${labels.map((l) => `(?=[^}]*${l})`).join('')}[^}]*\\} ${value}`);
      let metrics = '';
      // Workflow metrics reach the exporter on the worker's next flush.
      await waitFor(
        async () => {
          metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          return /platform_task_polls_count/.test(metrics);
        },
        15_000,
        'the polls per task on /metrics',
      );
      expect(metrics).toMatch(series('platform_ops_webhook_callbacks_received(_total)?', ['outcome="delivered"']));
      expect(metrics).toMatch(series('platform_ops_webhook_callbacks_rejected(_total)?', ['reason="bad_token"']));
      expect(metrics).toMatch(
        series('platform_task_polls_count', ['operation="text-to-video"', 'webhook="on"', 'ended_by="callback"']),
      );
      expect(metrics).toMatch(
        series('platform_task_polls_sum', ['operation="text-to-video"', 'webhook="on"', 'ended_by="callback"'], '0'),
      );
      expect(metrics).not.toContain(SECRET);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output()).not.toContain(SECRET);
    expect(output()).not.toContain('token=');
  });
});
