// Webhook-first completion end to end: the shared dev server, an emulator of this file's own (its
// callback faults are set per test), the receiver in this process and a worker whose submits carry
// callback URLs. A callback ends the wait without a poll; a lost one is found by the safety-net poll;
// an early, duplicated or delayed one changes nothing but the timing.
import { Client, Connection } from '@temporalio/client';
import { loadDataConverter, type MediaGenerationInput, WorkflowType } from '@platform-ops/client';
import { serveCallbacks, type RunningReceiver } from '../../src/webhooks/receiver';
import { loadWebhookSettings } from '../../src/config/settings';
import { CallbackSigner, callbackUrls, type CallbackUrls } from '../../src/webhooks/token';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { quietRuntime, recordHistory, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const SECRET = 'test-webhook-secret-of-at-least-32-characters';
const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };

let emu: TestEmulator;
let connection: Connection;
let receiver: RunningReceiver;

beforeAll(async () => {
  quietRuntime();
  emu = await startTestEmulator({ clockSpeed: 1 });
  connection = await Connection.connect({ address: testEnv('temporalAddress') });
  const namespace = testEnv('temporalNamespace');
  const settings = loadWebhookSettings({ WEBHOOK_LISTEN: '127.0.0.1:0', WEBHOOK_SECRET: SECRET });
  receiver = (await serveCallbacks(
    settings,
    new Client({ connection, namespace, dataConverter: loadDataConverter() }),
    namespace,
  ))!;
});

afterAll(async () => {
  await receiver?.close();
  await connection?.close();
  await emu?.close();
});

afterEach(() =>
  emu.admin('PUT', '/callbacks', { lostRate: 0, duplicateRate: 0, delayRate: 0, earlyRate: 0, outOfOrderRate: 0 }),
);

function urls(firstPollSeconds = 60): CallbackUrls {
  return callbackUrls(
    {
      WEBHOOK_PUBLIC_URL: receiver.url,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_FIRST_POLL_SECONDS: firstPollSeconds,
      WEBHOOK_POLL_INTERVAL_SECONDS: 60,
    },
    testEnv('temporalNamespace'),
  )!;
}

const input = (prompt: string): MediaGenerationInput => ({
  operation: 'text-to-video',
  request: { prompt },
  polling: FAST,
  keepOutputs: false,
});

function run(ctx: TemporalTestContext, prompt: string) {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId('webhook'),
    args: [input(prompt)],
  });
}

const pollsOf = async (taskId: string) =>
  (await emu.admin<{ polls: { byTask: Record<string, number> } }>('GET', '/counters')).polls.byTask[taskId] ?? 0;

describe('webhook-first mediaGeneration', () => {
  it('ends on the callback without a single poll, where polling alone needs several', async () => {
    const polled = await withWorker(
      'webhook-off',
      async (ctx) => (await run(ctx, 'fox [emulator:duration=1500]')).result(),
      {
        platform: emu.client(),
      },
    );
    expect(polled.polls).toBeGreaterThanOrEqual(2);
    expect(await pollsOf(polled.taskId)).toBe(polled.polls);

    await withWorker(
      'webhook-on',
      async (ctx) => {
        const handle = await run(ctx, 'fox [emulator:duration=1500]');
        const result = await handle.result();
        expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED', polls: 0 })]);
        expect(result.polls).toBe(0);
        expect(result.outputUrls.map((o) => o.kind)).toEqual(['video']);
        // The emulator's own count: the submit was the only platform call of this task.
        expect(await pollsOf(result.taskId)).toBe(0);
        // Noticed within moments of the end, not at the 60 s safety-net poll.
        const view = await emu.admin<{ finishedAtReal: number }>('GET', `/tasks/${result.taskId}`);
        expect(Date.parse(result.timings.doneAt) - view.finishedAtReal).toBeLessThan(2_000);
        // Neither the secret nor the token is in the history.
        const history = JSON.stringify(await handle.fetchHistory());
        expect(history).not.toContain(SECRET);
        expect(history).not.toContain(
          new CallbackSigner(SECRET, testEnv('temporalNamespace')).token({
            workflowId: handle.workflowId,
            generation: 1,
          }),
        );
        await recordHistory(handle, 'mediaGeneration-webhook-first-1.3');
      },
      { platform: emu.client(), callbacks: urls() },
    );
  });

  it('a generic async model ends on its callback too (the same wait, the quota queue submit)', () =>
    withWorker(
      'webhook-model',
      async (ctx) => {
        const handle = await ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
          taskQueue: ctx.taskQueue,
          workflowId: uniqueId('webhook-model'),
          args: [
            {
              operation: 'async',
              model: 'qwen-image',
              request: { prompt: 'a fox [emulator:duration=800]' },
              polling: FAST,
              keepOutputs: false,
            },
          ],
        });
        const result = await handle.result();
        expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED', polls: 0 })]);
        expect(result.outputUrls.map((o) => o.kind)).toEqual(['image']);
        expect(await pollsOf(result.taskId)).toBe(0);
        const history = JSON.stringify(await handle.fetchHistory());
        expect(history).not.toContain(SECRET);
        expect(history).not.toContain('token=');
        await recordHistory(handle, 'mediaGeneration-webhook-first-async-model-1.3');
      },
      { platform: emu.client(), callbacks: urls() },
    ));

  it('a lost callback: the safety-net poll finds the end', () =>
    withWorker(
      'webhook-lost',
      async (ctx) => {
        await emu.admin('PUT', '/callbacks', { lostRate: 1 });
        const result = await (await run(ctx, 'lost [emulator:duration=500]')).result();
        expect(result.generations[0].status).toBe('TASK_STATUS_SUCCEED');
        expect(result.polls).toBeGreaterThanOrEqual(1);
        expect(await pollsOf(result.taskId)).toBe(result.polls);
        const { stats } = await emu.admin<{ stats: { lost: number } }>('GET', '/callbacks');
        expect(stats.lost).toBeGreaterThanOrEqual(1);
      },
      { platform: emu.client(), callbacks: urls(1) },
    ));

  it('a callback sent before the submit answered, and duplicated, still ends the wait at once, once', () =>
    withWorker(
      'webhook-early',
      async (ctx) => {
        await emu.admin('PUT', '/callbacks', { earlyRate: 1, duplicateRate: 1 });
        const handle = await run(ctx, 'quick [emulator:duration=200]');
        const result = await handle.result();
        expect(result.generations[0].status).toBe('TASK_STATUS_SUCCEED');
        expect(result.polls).toBe(0);
        expect(await pollsOf(result.taskId)).toBe(0);
        const { stats } = await emu.admin<{ stats: { early: number; duplicated: number; delivered: number } }>(
          'GET',
          '/callbacks',
        );
        expect(stats.early).toBeGreaterThanOrEqual(1);
        expect(stats.duplicated).toBeGreaterThanOrEqual(1);
        // The copy was refused as a replay (409, so the emulator retried it): one signal reached the workflow.
        const history = await handle.fetchHistory();
        const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
        expect(signals).toHaveLength(1);
      },
      { platform: emu.client(), callbacks: urls() },
    ));

  it('delayed and out-of-order callbacks end every wait', () =>
    withWorker(
      'webhook-order',
      async (ctx) => {
        await emu.admin('PUT', '/callbacks', { delayRate: 0.5, delayMs: 700, outOfOrderRate: 0.5 });
        const handles = await Promise.all(
          [300, 400, 500, 600].map((ms, i) => run(ctx, `order ${i} [emulator:duration=${ms}]`)),
        );
        const results = await Promise.all(handles.map((h) => h.result()));
        for (const r of results) {
          expect(r.generations[0].status).toBe('TASK_STATUS_SUCCEED');
          expect(r.polls).toBe(0);
        }
      },
      { platform: emu.client(), callbacks: urls() },
    ));
});
