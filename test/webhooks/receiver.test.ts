// The webhook receiver as a process of its own (`npm run webhooks`) against the shared dev server:
// every bad callback gets a clear 4xx, changes nothing in the workflow it names, and is counted on the
// process's Prometheus endpoint; a late callback (the workflow has ended) is taken and ignored.
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowType } from '@platform-ops/client';
import { getFreePort } from '../../src/devserver/processes';
import { CallbackSigner } from '../../src/webhooks/token';
import { uniqueId, withClient } from '../helpers/temporal';
import { cleanEnv, startNode, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const SECRET = 'another-test-secret-of-at-least-32-chars';

let child: ChildProcess;
let output: () => string;
let url: string;
let metricsUrl: string;
let signer: CallbackSigner;

beforeAll(async () => {
  const [port, metricsPort] = [await getFreePort(), await getFreePort()];
  url = `http://127.0.0.1:${port}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  signer = new CallbackSigner(SECRET, testEnv('temporalNamespace'));
  ({ child, output } = startNode(
    'webhooks/main.js',
    cleanEnv({
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
      WEBHOOK_LISTEN: `127.0.0.1:${port}`,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_MAX_BODY_KB: '4',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'WARN',
    }),
  ));
  await waitFor(
    () =>
      fetch(`${url}/task-callback`, { method: 'POST' }).then(
        () => true,
        () => false,
      ),
    20_000,
    `the receiver to listen (${output()})`,
  );
});

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
});

const body = (taskId: string, status = 'TASK_STATUS_SUCCEED') => ({
  event_type: 'ASYNC_TASK_RESULT',
  payload: {
    task: { task_id: taskId, status, reason: '', eta: 0, progress_percent: 100 },
    videos: [{ video_url: 'https://files.example/v.mp4', video_url_ttl: '3600', video_type: 'mp4' }],
  },
});

function callbackUrl(workflowId: string, generation = 1, token = signer.token({ workflowId, generation })) {
  return `${url}/task-callback?${new URLSearchParams({ workflow: workflowId, generation: String(generation), token }).toString()}`;
}

async function post(to: string, payload: unknown, raw?: string) {
  const res = await fetch(to, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(payload),
  });
  return { status: res.status, body: (await res.json()) as { error?: string; message?: string; ignored?: string } };
}

/** A mediaGeneration that no worker runs: it stays open, and its history shows every signal it got. */
async function openWorkflow(fn: (handle: WorkflowHandle) => Promise<void>) {
  await withClient(async (client) => {
    const handle = await client.workflow.start(WorkflowType.mediaGeneration, {
      taskQueue: uniqueId('no-worker'),
      workflowId: uniqueId('webhook-target'),
      args: [{ operation: 'text-to-video', request: { prompt: 'x' } }],
    });
    try {
      await fn(handle);
    } finally {
      await handle.terminate('test done').catch(() => undefined);
    }
  });
}

const signalsOf = async (handle: WorkflowHandle) =>
  ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;

async function counter(name: 'received' | 'rejected', label: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const re = new RegExp(`^platform_ops_webhook_callbacks_${name}(?:_total)?\\{[^}]*="${label}"[^}]*\\} (\\d+)`, 'm');
  return Number(re.exec(text)?.[1] ?? 0);
}

describe('webhook receiver (own process)', () => {
  it('refuses bad callbacks with a 4xx naming the rule, changes nothing, and counts each', () =>
    openWorkflow(async (handle) => {
      const good = callbackUrl(handle.workflowId);

      const wrongToken = await post(
        callbackUrl(handle.workflowId, 1, signer.token({ workflowId: 'other', generation: 1 })),
        body('t1'),
      );
      expect(wrongToken).toEqual({ status: 401, body: expect.objectContaining({ error: 'bad_token' }) });
      const otherGeneration = await post(
        callbackUrl(handle.workflowId, 2, signer.token({ workflowId: handle.workflowId, generation: 1 })),
        body('t1'),
      );
      expect(otherGeneration.status).toBe(401);
      const noAddress = await post(`${url}/task-callback`, body('t1'));
      expect(noAddress).toEqual({ status: 400, body: expect.objectContaining({ error: 'bad_address' }) });

      const wrongEvent = await post(good, { ...body('t1'), event_type: 'SOMETHING_ELSE' });
      expect(wrongEvent.status).toBe(400);
      expect(wrongEvent.body.message).toMatch(/event_type/);
      const noTaskId = await post(good, {
        event_type: 'ASYNC_TASK_RESULT',
        payload: { task: { status: 'TASK_STATUS_SUCCEED' } },
      });
      expect(noTaskId.status).toBe(400);
      expect(noTaskId.body.message).toMatch(/task_id/);
      const longTaskId = await post(good, body('x'.repeat(300)));
      expect(longTaskId.status).toBe(400);
      expect(longTaskId.body.message).toMatch(/payload\.task\.task_id/);
      const notJson = await post(good, undefined, '{"event_type": ');
      expect(notJson).toEqual({ status: 400, body: expect.objectContaining({ error: 'malformed_body' }) });
      const huge = await post(good, { ...body('t1'), padding: 'x'.repeat(8 * 1024) });
      expect(huge).toEqual({ status: 413, body: expect.objectContaining({ error: 'too_large' }) });

      // Never started: nothing waits for this task.
      const unknown = await post(callbackUrl(uniqueId('never-started')), body('t1'));
      expect(unknown).toEqual({ status: 404, body: expect.objectContaining({ error: 'unknown_task' }) });

      // A progress report is taken and dropped.
      const progress = await post(good, body('t1', 'TASK_STATUS_PROCESSING'));
      expect(progress.status).toBe(200);
      expect(await signalsOf(handle)).toBe(0);

      // The first good one is delivered; the same again is a replay.
      expect((await post(good, body('t1'))).status).toBe(200);
      const replay = await post(good, body('t1'));
      expect(replay).toEqual({ status: 409, body: expect.objectContaining({ error: 'replay' }) });
      expect(await signalsOf(handle)).toBe(1);

      // A flood on one URL: refused once its allowance is used up.
      const flood = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(good, body(`flood-${i}`, 'TASK_STATUS_PROCESSING'))),
      );
      expect(flood.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      expect(await signalsOf(handle)).toBe(1);

      for (const reason of [
        'bad_token',
        'bad_address',
        'malformed_body',
        'too_large',
        'unknown_task',
        'replay',
        'flood',
      ]) {
        expect(await counter('rejected', reason)).toBeGreaterThanOrEqual(1);
      }
      expect(await counter('rejected', 'bad_token')).toBe(2);
      expect(await counter('rejected', 'malformed_body')).toBe(4);
      expect(await counter('received', 'delivered')).toBe(1);
      expect(await counter('received', 'not_terminal')).toBeGreaterThanOrEqual(1);
    }));

  it('a late callback, after the workflow ended, is taken and changes nothing', () =>
    openWorkflow(async (handle) => {
      await handle.terminate('ended before its callback came');
      const late = await post(callbackUrl(handle.workflowId), body('t-late'));
      expect(late.status).toBe(200);
      expect(late.body.ignored).toMatch(/has ended/);
      expect(await signalsOf(handle)).toBe(0);
      expect(await counter('received', 'workflow_closed')).toBe(1);
    }));
});
