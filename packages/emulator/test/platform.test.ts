// The emulator's platform routes over real HTTP: auth, the task state machine and its outputs,
// instances, catalog, decision evaluation.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- answers are untyped JSON, read by the assertions */
import { DEV_API_KEY } from '../src/config';
import { I2V, T2V, TASK_RESULT, pngDataUrl, emulatorForFile } from './support';

const emu = emulatorForFile();

const errorBody = (status: number) =>
  expect.objectContaining({
    code: status,
    reason: expect.any(String),
    message: expect.any(String),
    metadata: expect.objectContaining({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) }),
  });

describe('auth', () => {
  it('refuses a missing key with 401 in the platform error body', async () => {
    const res = await emu.call('GET', '/openapi/v1/user/quota/list', { key: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(errorBody(401));
  });

  it('refuses a wrong key with 401, without echoing it', async () => {
    const res = await emu.call('GET', TASK_RESULT, { key: 'sk-not-a-key-12345678', query: { task_id: 'x' } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(errorBody(401));
    expect(res.text).not.toContain('sk-not-a-key-12345678');
  });

  it('takes the key with or without the Bearer scheme, as the platform does', async () => {
    for (const authorization of [`Bearer ${DEV_API_KEY}`, `bearer  ${DEV_API_KEY}`, DEV_API_KEY]) {
      const res = await fetch(`${emu.url}/openapi/v1/user/quota/list`, { headers: { authorization } });
      expect(res.status).toBe(200);
    }
    const bare = await fetch(`${emu.url}/openapi/v1/user/quota/list`, { headers: { authorization: 'Bearer' } });
    expect(bare.status).toBe(401);
    const twoWords = await fetch(`${emu.url}/openapi/v1/user/quota/list`, {
      headers: { authorization: `Token ${DEV_API_KEY}` },
    });
    expect(twoWords.status).toBe(401);
  });

  it('refuses a disabled key with 403', async () => {
    await emu.admin('POST', '/fixtures', {
      apiKeys: [{ key: 'emu-disabled-key-1234', id: 'key-off', disabled: true }],
    });
    const res = await emu.call('GET', '/openapi/v1/user/quota/list', { key: 'emu-disabled-key-1234' });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(errorBody(403));
    await emu.admin('DELETE', '/fixtures');
  });

  it('leaves the health check, output files and admin API open', async () => {
    expect((await emu.call('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await emu.call('GET', '/_emulator/counters', { key: null })).status).toBe(200);
    expect((await emu.call('GET', '/_files/outputs/nope.mp4', { key: null })).status).toBe(404);
  });
});

describe('async tasks', () => {
  const submitT2v = async (prompt: string, extra: Record<string, unknown> = {}) => {
    const res = await emu.call('POST', T2V, { json: { prompt, ...extra } });
    expect(res.status).toBe(200);
    return res.json.task_id as string;
  };
  const result = async (taskId: string) => {
    const res = await emu.call('GET', TASK_RESULT, { query: { task_id: taskId } });
    expect(res.status).toBe(200);
    return res.json;
  };

  it('runs QUEUED → PROCESSING → SUCCEED, eta falling and progress rising, with downloadable outputs', async () => {
    await emu.freeze();
    const id = await submitT2v('a cat [emulator:queued=2000] [emulator:duration=10000] [emulator:ttl=30]', {
      sound: true,
    });
    const seen: { status: string; eta: number; progress: number }[] = [];
    for (let step = 0; step <= 12; step++) {
      const r = await result(id);
      seen.push({ status: r.task.status, eta: r.task.eta, progress: r.task.progress_percent });
      await emu.advance(1_000);
    }
    expect(seen[0]).toEqual({ status: 'TASK_STATUS_QUEUED', eta: 12, progress: 0 });
    const processing = seen.filter((s) => s.status === 'TASK_STATUS_PROCESSING');
    expect(processing.length).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < processing.length; i++) {
      expect(processing[i].eta).toBeLessThan(processing[i - 1].eta);
      expect(processing[i].progress).toBeGreaterThan(processing[i - 1].progress);
    }
    const last = await result(id);
    expect(last.task).toMatchObject({ status: 'TASK_STATUS_SUCCEED', reason: '', eta: 0, progress_percent: 100 });
    expect(last.images).toEqual([]);
    expect(last.videos).toEqual([
      {
        video_url: expect.stringMatching(/\/_files\/outputs\/[0-9a-f]{32}\.mp4$/),
        video_url_ttl: '30',
        video_type: 'mp4',
      },
    ]);
    expect(last.audios).toHaveLength(1);
    expect(last.extra.debug_info.complete_time_ms).not.toBe('0');

    const video = await fetch(last.videos[0].video_url);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await video.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(1_000);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const audio = await fetch(last.audios[0].audio_url);
    expect(audio.status).toBe(200);
    expect(
      Buffer.from(await audio.arrayBuffer())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('RIFF');

    // The TTL counts on the emulated clock from the end of the task.
    await emu.advance(31_000);
    expect((await fetch(last.videos[0].video_url)).status).toBe(410);
  });

  it('tells when a task ended, in emulated and real time', async () => {
    const id = await submitT2v('quick [emulator:duration=100]');
    await new Promise((r) => setTimeout(r, 50));
    const view = await emu.admin('GET', `/tasks/${id}`);
    expect(view.status).toBe('TASK_STATUS_SUCCEED');
    expect(view.finishedAt).toBe(view.plannedEndAt);
    expect(view.finishedAtReal).toBeGreaterThanOrEqual(view.createdAtReal);
    expect(view.finishedAtReal).toBeLessThanOrEqual(Date.now());
  });

  it('fails with the reason a marker names, without outputs or a charge', async () => {
    const id = await submitT2v('bad [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=100]');
    await new Promise((r) => setTimeout(r, 30));
    const r = await result(id);
    expect(r.task).toMatchObject({ status: 'TASK_STATUS_FAILED', reason: 'ILLEGAL_PROMPT' });
    expect(r.videos).toEqual([]);
    expect((await emu.admin('GET', `/tasks/${id}`)).charged).toBe(0);
  });

  it('applies per-operation settings: failure rate and reasons, durations, ETA accuracy', async () => {
    await emu.admin('PUT', '/tasks/settings', {
      submitTextToVideo: { failureRate: 1, failureReasons: ['GENERATION_TIMEOUT'], queuedMs: 0, processingMs: 500 },
      submitImageToVideo: { processingMs: 123_000, queuedMs: 7_000, etaAccuracy: 0.5 },
    });
    const failing = await submitT2v('anything');
    const i2v = await emu.call('POST', I2V, { json: { image: pngDataUrl(1280, 720), prompt: 'a dog' } });
    expect(i2v.status).toBe(200);
    const plan = await emu.admin('GET', `/tasks/${i2v.json.task_id}`);
    expect(plan).toMatchObject({ queuedMs: 7_000, processingMs: 123_000 });
    // ETA off by at most ±50 %, never negative.
    const eta = (await result(i2v.json.task_id)).task.eta;
    expect(eta).toBeGreaterThanOrEqual(Math.floor(130 * 0.5) - 1);
    expect(eta).toBeLessThanOrEqual(Math.ceil(130 * 1.5));
    await new Promise((r) => setTimeout(r, 30));
    expect((await result(failing)).task).toMatchObject({ status: 'TASK_STATUS_FAILED', reason: 'GENERATION_TIMEOUT' });
    // [emulator:succeed] wins over the failure rate.
    const forced = await submitT2v('fine [emulator:succeed]');
    await new Promise((r) => setTimeout(r, 30));
    expect((await result(forced)).task.status).toBe('TASK_STATUS_SUCCEED');
  });

  it('reflects NSFW detection and charges its surcharge', async () => {
    await emu.freeze();
    const id = await submitT2v('x [emulator:duration=1000]', { extra: { enable_nsfw_detection: true }, duration: 3 });
    await emu.advance(1_000);
    const r = await result(id);
    expect(r.extra.enable_nsfw_detection).toBe(true);
    // 3 s of pro-t2v at 1120 plus one checked key frame at 15.
    expect((await emu.admin('GET', `/tasks/${id}`)).charged).toBe(3 * 1_120 + 15);
  });

  it('answers 404 TASK_NOT_FOUND for an unknown task and 400 for bad submits and markers', async () => {
    const unknown = await emu.call('GET', TASK_RESULT, { query: { task_id: 'task_nope' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ reason: 'TASK_NOT_FOUND' });
    const empty = await emu.call('GET', TASK_RESULT, { query: { task_id: '' } });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toContain('task_id: must not be empty');
    const marker = await emu.call('POST', T2V, { json: { prompt: 'x [emulator:explode]' } });
    expect(marker.status).toBe(400);
    expect(marker.json.message).toMatch(/^prompt: has an unknown emulator marker \[emulator:explode\]/);
    const bad = await emu.call('POST', I2V, { json: { image: pngDataUrl(200, 400), prompt: 'x', duration: 20 } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('image: width and height must be at least 300 px (is 200x400)');
    expect(bad.json.message).toContain('duration: must be at most 15');
    const notJson = await fetch(`${emu.url}${T2V}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEV_API_KEY}`, 'content-type': 'application/json' },
      body: '{"prompt":',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { reason: string }).reason).toBe('INVALID_REQUEST_BODY');
  });
});

describe('instances', () => {
  const get = async (id: string) =>
    (await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', { query: { instanceId: id } })).json;

  it('renews a subscription by 30-day months', async () => {
    await emu.freeze();
    const before = await get('inst-demo-1');
    expect(before).toMatchObject({ id: 'inst-demo-1', status: 'running', billingMode: 'subscription' });
    const res = await emu.call('PUT', '/gpus/v2/instances/inst-demo-1/renew', { json: { months: 2 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    expect((await get('inst-demo-1')).endTime - before.endTime).toBe(60 * 86_400);
  });

  it('refuses renewals it cannot do, as the GPU API does (400)', async () => {
    const payg = await emu.call('PUT', '/gpus/v2/instances/inst-payg-1/renew', { json: { months: 1 } });
    expect(payg.status).toBe(400);
    expect(payg.json.reason).toBe('INSTANCE_NOT_SUBSCRIPTION');
    expect((await get('inst-payg-1')).endTime).toBe(-1);
    const missing = await emu.call('PUT', '/gpus/v2/instances/inst-nope/renew', { json: { months: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.json.reason).toBe('RESOURCE_NOT_FOUND');
    const zero = await emu.call('PUT', '/gpus/v2/instances/inst-demo-1/renew', { json: { months: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.json.message).toBe('months: must be greater than 0');
  });

  it('renews an instance with a 200-character id, and refuses a longer path in the platform error body', async () => {
    const longId = `inst-${'x'.repeat(195)}`;
    await emu.admin('POST', '/fixtures', {
      instances: [{ id: longId, status: 'running', billingMode: 'subscription', expiresInDays: 5 }],
    });
    const res = await emu.call('PUT', `/gpus/v2/instances/${longId}/renew`, { json: { months: 1 } });
    expect(res.status).toBe(200);
    expect((await get(longId)).id).toBe(longId);

    const tooLong = await emu.call('PUT', `/gpus/v2/instances/inst-${'x'.repeat(300)}/renew`, { json: { months: 1 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json).toEqual(errorBody(400));
    expect(tooLong.json.message).toBe('instanceId: must be at most 255 characters long');

    const huge = await emu.call('PUT', `/gpus/v2/instances/${'x'.repeat(3000)}/renew`, { json: { months: 1 } });
    expect(huge.status).toBe(414);
    expect(huge.json).toEqual(errorBody(414));
    await emu.admin('DELETE', '/fixtures');
  });

  it('restarts through toRestart and restarting to running', async () => {
    await emu.freeze();
    await emu.admin('PUT', '/instances/settings', { toRestartMs: 1_000, restartingMs: 4_000 });
    const res = await emu.call('POST', '/gpu-instance/openapi/v1/gpu/instance/restart', {
      json: { instanceId: 'inst-demo-2' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    expect((await get('inst-demo-2')).status).toBe('toRestart');
    await emu.advance(1_000);
    expect((await get('inst-demo-2')).status).toBe('restarting');
    // A retried restart is accepted and does not start over.
    expect(
      (await emu.call('POST', '/gpu-instance/openapi/v1/gpu/instance/restart', { json: { instanceId: 'inst-demo-2' } }))
        .status,
    ).toBe(200);
    await emu.advance(4_000);
    expect((await get('inst-demo-2')).status).toBe('running');
  });

  it('refuses to restart an exited or unknown instance', async () => {
    const exited = await emu.call('POST', '/gpu-instance/openapi/v1/gpu/instance/restart', {
      json: { instanceId: 'inst-exited-1' },
    });
    expect(exited.status).toBe(400);
    expect(exited.json).toMatchObject({ reason: 'INSTANCE_STATE_INVALID', message: expect.stringContaining('exited') });
    const unknown = await emu.call('POST', '/gpu-instance/openapi/v1/gpu/instance/restart', {
      json: { instanceId: 'inst-x' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.reason).toBe('RESOURCE_NOT_FOUND');
    const getUnknown = await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', {
      query: { instanceId: 'inst-x' },
    });
    expect(getUnknown.status).toBe(400);
    expect(getUnknown.json.reason).toBe('RESOURCE_NOT_FOUND');
    expect((await get('inst-failed-1')).statusError).toEqual({ state: 'pullFailed', message: expect.any(String) });
  });
});

describe('catalog', () => {
  it('pages templates with cursors and a default page of 20', async () => {
    const first = await emu.call('GET', '/gpus/v2/templates');
    expect(first.json.data).toHaveLength(20);
    expect(first.json.has_more).toBe(true);
    const ids: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const page = await emu.call('GET', '/gpus/v2/templates', { query: { limit: 10, cursor } });
      ids.push(...page.json.data.map((t: { id: string }) => t.id));
      if (!page.json.has_more) {
        expect(page.json.next_cursor).toBe('');
        break;
      }
      cursor = page.json.next_cursor;
    }
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
    const bad = await emu.call('GET', '/gpus/v2/templates', { query: { cursor: 'not-a-cursor' } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^cursor: /);
  });

  it('filters templates', async () => {
    const community = await emu.call('GET', '/gpus/v2/templates', { query: { is_my_community: true } });
    expect(community.json.data.length).toBeGreaterThan(0);
    expect(community.json.data.every((t: { visibility: string }) => t.visibility === 'community')).toBe(true);
    const named = await emu.call('GET', '/gpus/v2/templates', {
      query: { name: 'pytorch', visibilities: 'public,private' },
    });
    expect(named.json.data.map((t: { name: string }) => t.name)).toEqual(['PyTorch 2.4', 'PyTorch 2.1']);
    const neg = await emu.call('GET', '/gpus/v2/templates', { query: { limit: -1 } });
    expect(neg.status).toBe(400);
    expect(neg.json.message).toBe('limit: must be at least 0');
  });

  it('filters products by every filter, under their query names', async () => {
    const gpus = await emu.call('GET', '/gpus/v2/products');
    expect(gpus.json.data.length).toBeGreaterThan(2);
    expect(gpus.json.data.every((p: { type: string }) => p.type === 'gpu')).toBe(true);
    expect(gpus.json).not.toHaveProperty('next_cursor');
    const cpu = await emu.call('GET', '/gpus/v2/products', {
      query: {
        product_type: 'cpu',
        cpu_num: 8,
        memory_gb: 32,
        rootfs_gb: 100,
        billing_method: 'postpaid',
        region_ids: 'us-west-2,eu-west-1',
      },
    });
    expect(cpu.json.data.map((p: { id: string }) => p.id)).toEqual(['cpu-8c-32g', 'cpu-16c-64g']);
    const paged = await emu.call('GET', '/gpus/v2/products', { query: { limit: 2 } });
    expect(paged.json).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const bad = await emu.call('GET', '/gpus/v2/products', { query: { memory_gb: 1.5, billing_method: 'free' } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('memory_gb: must be an integer');
    expect(bad.json.message).toContain('billing_method: must be one of "postpaid", "prepaid", "spot"');
  });
});

describe('decision evaluation', () => {
  const ask = (body: Record<string, unknown>) =>
    emu.call('POST', '/v3/decision-evaluation', {
      json: { model: 'vendor/decision-27b-vl', state: 'a red shoe', ...body },
    });

  it('answers deterministically, with usage, the model in another case, and no thinking by default', async () => {
    const a = await ask({ kind: 'yes_no', question: 'Is it red?' });
    const b = await ask({ kind: 'yes_no', question: 'Is it red?' });
    expect(a.status).toBe(200);
    expect(a.json.probabilities).toEqual(b.json.probabilities);
    expect(Object.keys(a.json.probabilities)).toEqual(['yes', 'no']);
    expect(a.json.probabilities.yes + a.json.probabilities.no).toBeCloseTo(1, 6);
    expect(a.json).toMatchObject({ model: 'VENDOR/DECISION-27B-VL', num_model_requests: 1 });
    expect(a.json.thinking).toBeUndefined();
    expect(a.json.usage.prompt_tokens).toBeGreaterThan(24);
  });

  it('picks the most probable option, thinks when asked, and honours [emulator:p=]', async () => {
    const res = await ask({
      kind: 'choice',
      state: ['a photo', { image: 'https://img.example.com/a.png' }],
      question: 'Which animal? [emulator:p=0.8]',
      options: ['cat', 'dog', 'cow'],
      thinking: true,
      return_reasoning: true,
    });
    expect(res.status).toBe(200);
    expect(res.json.probabilities.cat).toBe(0.8);
    expect(res.json.choice).toBe('cat');
    expect(res.json.num_model_requests).toBe(2);
    expect(res.json.thinking).toMatchObject({ think_tokens: expect.any(Number), reasoning: expect.any(String) });
    expect(res.json.usage.completion_tokens).toBe(res.json.thinking.think_tokens + 1);
    // 258 tokens for the image.
    expect(res.json.usage.prompt_tokens).toBeGreaterThan(258);
  });

  it('returns upstream refusals in the platform error structure, uncharged', async () => {
    const before = (await emu.admin('GET', '/charges')).charges.length;
    const kind = await ask({ kind: 'rank', question: 'q' });
    expect(kind.status).toBe(400);
    expect(kind.json).toEqual(errorBody(400));
    expect(kind.json.reason).toBe('INVALID_DECISION_KIND');
    const thinking = await ask({ kind: 'yes_no', question: 'q', think_budget: 100 });
    expect(thinking.json.reason).toBe('INVALID_DECISION_THINKING');
    const failed = await ask({ kind: 'yes_no', question: 'q [emulator:fail]' });
    expect(failed.status).toBe(502);
    expect((await emu.admin('GET', '/charges')).charges.length).toBe(before);
    const ok = await ask({ kind: 'yes_no', question: 'q' });
    const charges = (await emu.admin('GET', '/charges')).charges;
    expect(charges).toHaveLength(before + 1);
    expect(charges[charges.length - 1]).toMatchObject({
      productName: 'vendor/decision-27b-vl',
      usage: expect.objectContaining({ billNum0: String(ok.json.usage.prompt_tokens) }),
    });
  });
});
