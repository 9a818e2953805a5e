// The emulator's registry models over real HTTP: /v3/async/<path> runs the same task machine and
// serves the configured output kinds as real files; unknown models, bad bodies and the faults of the
// generic submit; the model list and the balance the worker's first call reads.
import { inflateSync } from 'node:zlib';
import { emulatorForFile } from './support';

const emu = emulatorForFile();

async function finish(taskId: string) {
  await emu.advance(60_000);
  const res = await emu.call('GET', '/v3/async/task-result', { query: { task_id: taskId } });
  expect(res.status).toBe(200);
  return res.json as {
    task: { status: string; task_type: string };
    images: { image_url: string; image_url_ttl: number; image_type: string }[];
    audios: { audio_url: string }[];
    videos: { video_url: string }[];
  };
}

describe('registry models on the emulator', () => {
  it('an image model: QUEUED → SUCCEED, a real PNG behind its URL, billed the registry price', async () => {
    await emu.freeze();
    const submit = await emu.call('POST', '/v3/async/qwen-image-txt2img', { json: { prompt: 'a fox' } });
    expect(submit.status).toBe(200);
    const taskId = (submit.json as { task_id: string }).task_id;
    const queued = await emu.call('GET', '/v3/async/task-result', { query: { task_id: taskId } });
    expect(queued.json.task.status).toBe('TASK_STATUS_QUEUED');
    const done = await finish(taskId);
    expect(done.task).toMatchObject({ status: 'TASK_STATUS_SUCCEED', task_type: 'TXT_TO_IMG' });
    expect(done.images).toEqual([expect.objectContaining({ image_type: 'png', image_url_ttl: 3600 })]);
    expect(done.videos).toEqual([]);
    const file = await fetch(done.images[0].image_url);
    expect(file.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await file.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // IHDR says 16×16; IDAT inflates to 16 rows of a filter byte and 16 RGB pixels.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([16, 16]);
    const idatLength = png.readUInt32BE(33);
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toHaveLength(16 * (1 + 16 * 3));
    const view = await emu.admin('GET', `/tasks/${taskId}`);
    expect(view).toMatchObject({ operation: 'submitAsyncTask', price: 200, charged: 200 });
  });

  it('a speech model yields a WAV, a pass-through model every kind', async () => {
    await emu.freeze();
    const speech = await emu.call('POST', '/v3/async/speech-02-hd', { json: { text: 'hello' } });
    const audio = await finish((speech.json as { task_id: string }).task_id);
    expect(audio.audios).toHaveLength(1);
    const wav = Buffer.from(await (await fetch(audio.audios[0].audio_url)).arrayBuffer());
    expect(wav.subarray(8, 12).toString('latin1')).toBe('WAVE');
    const pass = await emu.call('POST', '/v3/async/custom-anything', { json: { whatever: [1] } });
    const all = await finish((pass.json as { task_id: string }).task_id);
    expect([all.images.length, all.videos.length, all.audios.length]).toEqual([1, 1, 1]);
  });

  it('refuses an unknown model (404) and a body its schema refuses (400, naming the field)', async () => {
    const unknown = await emu.call('POST', '/v3/async/no-such-model', { json: { prompt: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.reason).toBe('MODEL_NOT_FOUND');
    const bad = await emu.call('POST', '/v3/async/qwen-image-txt2img', { json: { prompt: 'x', steps: 3 } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('steps');
  });

  it('applies prompt markers and the paid-call faults to the generic submit', async () => {
    await emu.freeze();
    const failing = await emu.call('POST', '/v3/async/qwen-image-txt2img', {
      json: { prompt: 'x [emulator:fail=ILLEGAL_PROMPT]' },
    });
    const failed = await finish((failing.json as { task_id: string }).task_id);
    expect(failed.task.status).toBe('TASK_STATUS_FAILED');
    await emu.admin('PUT', '/faults', { routes: { paid: { errorRate5xx: 1, status5xx: 503 } } });
    const refused = await emu.call('POST', '/v3/async/speech-02-hd', { json: { text: 'x' } });
    expect(refused.status).toBe(503);
  });

  it('lists the models and answers the balance with the key, 401 without', async () => {
    const models = await emu.call('GET', '/v1/models');
    expect(models.status).toBe(200);
    expect((models.json.data as { id: string }[]).map((m) => m.id)).toContain('qwen-image-txt2img');
    const balance = await emu.call('GET', '/openapi/v1/billing/balance/detail');
    expect(balance.json).toMatchObject({ availableBalance: expect.stringMatching(/^\d+$/) });
    expect((await emu.call('GET', '/v1/models', { key: 'sk-bad' })).status).toBe(401);
  });
});
