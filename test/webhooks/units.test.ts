// The receiver's and the workflow's plain parts, without a server: tokens, the guard's memory and
// limits, the callback body's checks, and the workflow's inbox of task ends.
import { TaskCallbackInbox } from '../../src/operations/mediaGeneration/workflows-wait';
import { parseCallbackBody } from '../../src/webhooks/receiver';
import { CallbackGuard } from '../../src/webhooks/receiver';
import { CallbackSigner, callbackUrls } from '../../src/webhooks/token';
import { loadWebhookSettings } from '../../src/config/settings';

const SECRET = 'unit-test-secret-of-at-least-32-characters';

describe('callback tokens', () => {
  const signer = new CallbackSigner(SECRET, 'default');
  const target = { workflowId: 'wf-1', generation: 1 };

  it('verify only their own workflow, generation, namespace and secret', () => {
    const token = signer.token(target);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(target, token)).toBe(true);
    expect(signer.verify({ ...target, generation: 2 }, token)).toBe(false);
    expect(signer.verify({ ...target, workflowId: 'wf-2' }, token)).toBe(false);
    expect(new CallbackSigner(SECRET, 'other').verify(target, token)).toBe(false);
    expect(new CallbackSigner(`${SECRET}x`, 'default').verify(target, token)).toBe(false);
    expect(signer.verify(target, token.slice(1))).toBe(false);
  });

  it('make URLs under the public base, without the secret', () => {
    const urls = callbackUrls(
      {
        WEBHOOK_PUBLIC_URL: 'https://hooks.example/ops/',
        WEBHOOK_SECRET: SECRET,
        WEBHOOK_FIRST_POLL_SECONDS: 60,
        WEBHOOK_POLL_INTERVAL_SECONDS: 300,
      },
      'default',
    )!;
    const url = new URL(urls.urlFor({ workflowId: 'a b/c', generation: 3 }));
    expect(url.origin + url.pathname).toBe('https://hooks.example/ops/task-callback');
    expect(url.searchParams.get('workflow')).toBe('a b/c');
    expect(url.searchParams.get('generation')).toBe('3');
    expect(signer.verify({ workflowId: 'a b/c', generation: 3 }, url.searchParams.get('token')!)).toBe(true);
    expect(url.href).not.toContain(SECRET);
    expect(urls).toMatchObject({ firstPollAfterMs: 60_000, pollIntervalMs: 300_000 });
  });

  it('are off without a public URL; a URL or a listener without a secret is refused by name', () => {
    expect(callbackUrls(loadWebhookSettings({}), 'default')).toBeUndefined();
    expect(() => loadWebhookSettings({ WEBHOOK_PUBLIC_URL: 'https://hooks.example' })).toThrow(
      /WEBHOOK_SECRET: is required when WEBHOOK_PUBLIC_URL is set/,
    );
    expect(() => loadWebhookSettings({ WEBHOOK_LISTEN: '8790', WEBHOOK_SECRET: 'short' })).toThrow(
      /WEBHOOK_SECRET: must be at least 32 characters/,
    );
    expect(() => loadWebhookSettings({ WEBHOOK_LISTEN: 'nope', WEBHOOK_SECRET: SECRET })).toThrow(/WEBHOOK_LISTEN/);
    expect(loadWebhookSettings({ WEBHOOK_LISTEN: '127.0.0.1:8790', WEBHOOK_SECRET: SECRET }).WEBHOOK_LISTEN).toEqual({
      host: '127.0.0.1',
      port: 8790,
    });
  });
});

describe('CallbackGuard', () => {
  it('remembers deliveries, bounded, and forgets a failed one', () => {
    const guard = new CallbackGuard({ maxRemembered: 2, burstPerUrl: 10, refillMsPerUrl: 1000, maxInFlight: 1 });
    guard.markDelivered('a');
    expect(guard.wasDelivered('a')).toBe(true);
    guard.forget('a');
    expect(guard.wasDelivered('a')).toBe(false);
    guard.markDelivered('a');
    guard.markDelivered('b');
    guard.markDelivered('c');
    expect(guard.wasDelivered('a')).toBe(false);
    expect(guard.wasDelivered('c')).toBe(true);
  });

  it('limits one URL to its burst, refilled over time, and the signals in flight', () => {
    let now = 0;
    const guard = new CallbackGuard(
      { maxRemembered: 100, burstPerUrl: 2, refillMsPerUrl: 1000, maxInFlight: 1 },
      () => now,
    );
    expect([guard.admit('u'), guard.admit('u'), guard.admit('u')]).toEqual([true, true, false]);
    expect(guard.admit('v')).toBe(true);
    now += 1000;
    expect([guard.admit('u'), guard.admit('u')]).toEqual([true, false]);
    expect(guard.enter()).toBe(true);
    expect(guard.enter()).toBe(false);
    guard.leave();
    expect(guard.enter()).toBe(true);
  });
});

describe('parseCallbackBody', () => {
  const payload = {
    task: { task_id: 't-1', status: 'TASK_STATUS_SUCCEED', reason: '', eta: 0, progress_percent: 100 },
    images: [{ image_url: 'https://f/i.jpeg', image_url_ttl: '3600', image_type: 'jpeg' }],
    extra: { enable_nsfw_detection: true },
  };

  it('reads the platform body leniently (a string TTL, missing arrays, unknown fields)', () => {
    const parsed = parseCallbackBody({ event_type: 'ASYNC_TASK_RESULT', payload, more: 1 }, 2);
    expect(parsed).toEqual({
      ok: true,
      callback: {
        taskId: 't-1',
        generation: 2,
        status: 'TASK_STATUS_SUCCEED',
        outputs: [{ kind: 'image', url: 'https://f/i.jpeg', ttlSeconds: 3600, type: 'jpeg' }],
        nsfwDetection: true,
      },
    });
  });

  it('names the field and the rule of a bad body', () => {
    const wrong = parseCallbackBody({ event_type: 'X', payload }, 1);
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.issues[0].field).toBe('event_type');
    const long = parseCallbackBody(
      { event_type: 'ASYNC_TASK_RESULT', payload: { ...payload, task: { ...payload.task, task_id: 'x'.repeat(257) } } },
      1,
    );
    expect(!long.ok && long.issues[0]).toMatchObject({
      field: 'payload.task.task_id',
      rule: expect.stringMatching(/256/),
    });
  });
});

describe('TaskCallbackInbox', () => {
  const end = (taskId: string, status = 'TASK_STATUS_SUCCEED') => ({
    taskId,
    generation: 1,
    status,
    outputs: [],
    nsfwDetection: false,
  });

  it('keeps each task end once, ignores what is not an end or not valid, and stays bounded', () => {
    const inbox = new TaskCallbackInbox();
    expect(inbox.add(end('a'))).toBe(true);
    expect(inbox.add(end('a', 'TASK_STATUS_FAILED'))).toBe(false);
    expect(inbox.endOf('a')?.status).toBe('TASK_STATUS_SUCCEED');
    expect(inbox.add(end('b', 'TASK_STATUS_PROCESSING'))).toBe(false);
    expect(inbox.add({ taskId: 'c' })).toBe(false);
    expect(inbox.endOf('b')).toBeUndefined();
    for (let i = 0; i < 40; i++) inbox.add(end(`t${i}`));
    expect(inbox.endOf('a')).toBeUndefined();
    expect(inbox.endOf('t39')).toBeDefined();
  });
});
