// Tracing and the work metrics for real: the worker process with OTEL_* and METRICS_PORT set, an
// OTLP/HTTP collector in this test (a plain HTTP server taking the JSON exports), a backend's start
// traced in this process with the typed client, and an emulator of this file's own that records the
// headers it receives. One trace must run from the start through the workflows and activities to the
// platform's HTTP calls, with no secret in any span, and the metrics must show on the scraped endpoint.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { type BudgetGatedJobInput, loadDataConverter, startWorkflow } from '@platform-ops/client';
import { getFreePort } from '../../src/devserver/processes';
import { startTracing, tracesExporterName, tracingClientInterceptors, type Tracing } from '../../src/tracing';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { startNode, waitFor, workerEnv } from '../helpers/processes';
import { testEnv } from '../setup/shared';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP collector: every span of every JSON export, and every export's raw body. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; bodies: string[]; close(): void }> {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        bodies.push(body);
        type Export = {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: Omit<ExportedSpan, 'service'>[] }[];
          }[];
        };
        for (const rs of (JSON.parse(body) as Export).resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ ...span, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => {
      // The exporters keep their connections alive: without this the server (and jest) would wait on them.
      server.closeAllConnections();
      server.close();
    },
  };
}

const recordFile = path.join(tmpdir(), `observability-${randomUUID().slice(0, 8)}.jsonl`);
/** The headers of every request the emulator received, in order. */
const recordedHeaders = (): Record<string, unknown>[] =>
  (existsSync(recordFile) ? readFileSync(recordFile, 'utf8') : '')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { request: { headers: Record<string, unknown> } }).request.headers);

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1, recordFile });
});
afterAll(() => emulator.close());

describe('tracing settings', () => {
  it('are off unless OTEL_TRACES_EXPORTER or an OTLP endpoint asks, and off again for none or OTEL_SDK_DISABLED', () => {
    expect(tracesExporterName({})).toBeUndefined();
    expect(tracesExporterName({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(tracesExporterName({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe('otlp');
    expect(tracesExporterName({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe('otlp');
    expect(tracesExporterName({ OTEL_TRACES_EXPORTER: 'console' })).toBe('console');
    expect(
      tracesExporterName({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }),
    ).toBeUndefined();
    expect(tracesExporterName({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
    expect(() => tracesExporterName({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/not supported here/);
    expect(startTracing({}, 'x')).toBeUndefined();
  });

  it('off: a platform call sends no traceparent', async () => {
    await emulator.client().listModels();
    await waitFor(() => recordedHeaders().length > 0, 5_000, 'the recorded request');
    const [first] = recordedHeaders();
    expect(first).toHaveProperty('authorization', '[REDACTED]');
    expect(first).not.toHaveProperty('traceparent');
  });
});

describe('the worker process with tracing and metrics', () => {
  const VIDEO_COST = 5_600;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let tracing: Tracing | undefined;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    collector = await startCollector();
    // This process is the backend: its own provider exports to the same collector.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    tracing = startTracing(process.env, 'test-backend');
  });
  afterAll(async () => {
    await tracing?.shutdown();
    collector.close();
    process.env = savedEnv;
  });

  it('one trace from the backend start to the platform HTTP call; trace ids in logs; work metrics scraped', async () => {
    expect(tracing).toBeDefined();
    const metricsPort = await getFreePort();
    const taskQueue = `observability-${randomUUID().slice(0, 8)}`;
    const memberId = await emulator.freshMember(100 * VIDEO_COST);
    // The customer's content: found in no span, log line or metric.
    const promptMarker = `mk${randomUUID().replace(/-/g, '')}`;
    const { child, output } = startNode(
      'worker.js',
      workerEnv(taskQueue, emulator, {
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'DEBUG',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'test-worker',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        WORKER_SHUTDOWN_GRACE_SECONDS: '2',
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const connection = await Connection.connect({ address: testEnv('temporalAddress') });
    try {
      await waitFor(() => output().includes('Worker started'), 90_000, 'the worker to start');
      expect(output()).toContain('"tracing":"on"');

      const client = new Client({
        connection,
        namespace: testEnv('temporalNamespace'),
        interceptors: tracingClientInterceptors(),
        dataConverter: loadDataConverter(),
      });
      const input: BudgetGatedJobInput = {
        memberId,
        job: {
          workflowType: 'mediaGeneration',
          input: {
            operation: 'text-to-video',
            request: { prompt: `a lighthouse ${promptMarker} [emulator:duration=1500]`, duration: 5 },
            regeneration: { maxRegenerations: 0 },
            polling: { minIntervalMs: 100, maxIntervalMs: 400 },
          },
        },
      };
      const { handle } = await startWorkflow(client, 'budgetGatedJob', input, { taskQueue });
      const result = await handle.result();
      expect(result.outcome).toBe('Completed');

      // The backend's start span, and the trace it began.
      await waitFor(
        () => collector.spans.some((s) => s.service === 'test-backend' && s.name === 'StartWorkflow:budgetGatedJob'),
        10_000,
        "the backend's start span",
      );
      const start = collector.spans.find((s) => s.name === 'StartWorkflow:budgetGatedJob')!;
      const inTrace = () => collector.spans.filter((s) => s.traceId === start.traceId);
      const submitCall = () => inTrace().find((s) => s.service === 'test-worker' && s.name.startsWith('POST submit'));
      const run = () => inTrace().find((s) => s.name === 'RunWorkflow:budgetGatedJob');
      await waitFor(() => submitCall() !== undefined && run() !== undefined, 15_000, 'the worker spans of the trace');
      // The workflow's span is the child of the backend's start: the context crossed in the start's headers.
      expect(run()!.parentSpanId).toBe(start.spanId);
      const names = inTrace().map((s) => s.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'RunWorkflow:budgetGatedJob',
          'StartChildWorkflow:mediaGeneration',
          'RunWorkflow:mediaGeneration',
          'StartActivity:submitMediaTask',
          'RunActivity:submitMediaTask',
          'RunActivity:pollTaskResult',
          'GET getTaskResult',
          'RunActivity:keepTaskOutputs',
        ]),
      );
      // The HTTP call is the activity's child, and its context is what the platform received.
      const submit = submitCall()!;
      const runSubmit = inTrace().find((s) => s.name === 'RunActivity:submitMediaTask')!;
      expect(submit.parentSpanId).toBe(runSubmit.spanId);
      const traceparents = recordedHeaders()
        .map((h) => h.traceparent)
        .filter((t): t is string => typeof t === 'string');
      expect(traceparents).toContain(`00-${start.traceId}-${submit.spanId}-01`);
      expect(submit.attributes).toEqual(
        expect.arrayContaining([
          { key: 'http.request.method', value: { stringValue: 'POST' } },
          { key: 'http.response.status_code', value: { intValue: 200 } },
        ]),
      );

      // No secret in any span: no credential header, no key anywhere in what was exported. Nor the customer's
      // content: the prompt, or an output's URL (its path is the media; the emulator serves it under /_files/).
      for (const body of collector.bodies)
        expect(body).not.toMatch(new RegExp(`${emulator.key}|${promptMarker}|/_files/`));
      for (const span of collector.spans) {
        for (const a of span.attributes) expect(a.key.toLowerCase()).not.toMatch(/authorization|api.?key|cookie/);
      }

      // Trace ids in the worker's log lines (the interceptors add them to workflow and activity logs).
      const logged = output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged.some((l) => l.trace_id === start.traceId)).toBe(true);

      // The quota workers have no workflows by design: the SDK's warning about that is said at DEBUG (this
      // worker logs at DEBUG), once per quota queue, and nothing else about it is a warning.
      const noWorkflows = logged.filter((l) => l.message === 'No workflows registered, not polling for workflow tasks');
      expect(noWorkflows.length).toBeGreaterThan(0);
      for (const l of noWorkflows) {
        expect(l).toMatchObject({ level: 'DEBUG', taskQueue: expect.stringContaining(`${taskQueue}.quota.`) });
      }

      // The work metrics on the worker's Prometheus endpoint.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).not.toContain(promptMarker);
      const value = (name: string, labels: string[]): number | undefined => {
        const line = metrics.split('\n').find(
          // The SDK's exporter may add _total to a counter's name.
          (l) =>
            /^[a-z_]+\{/.test(l) &&
            [`${name}{`, `${name}_total{`].some((p) => l.startsWith(p)) &&
            labels.every((label) => l.includes(label)),
        );
        return line === undefined ? undefined : Number(line.split(' ').at(-1));
      };
      // Recorded by mediaGeneration at the task's end (docs/webhooks.md#metrics); no callbacks here.
      const polled = ['operation="text-to-video"', 'webhook="off"', 'ended_by="poll"'];
      expect(value('platform_task_polls_count', polled)).toBeGreaterThanOrEqual(1);
      expect(value('platform_task_polls_sum', polled)).toBeGreaterThanOrEqual(1);
      expect(value('outputs_kept_bytes', ['kind="video"'])).toBeGreaterThan(0);
      expect(value('outputs_kept_files', ['kind="video"'])).toBe(1);
      expect(value('budget_reserved', [`member_id="${memberId}"`])).toBe(VIDEO_COST);
      expect(value('budget_released', [`member_id="${memberId}"`, 'job_status="COMPLETED"'])).toBe(VIDEO_COST);
      // The job's submit waited its turn in the backend's class and the member's share (docs/fairness.md).
      expect(value('platform_submit_wait_count', [`fairness_key="${memberId}"`, 'priority="interactive"'])).toBe(1);
    } finally {
      await connection.close();
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output()).not.toContain(emulator.key);
    expect(output()).not.toMatch(new RegExp(`${promptMarker}|/_files/`));
  }, 180_000);
});
