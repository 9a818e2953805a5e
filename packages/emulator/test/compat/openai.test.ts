// The official OpenAI JavaScript client (openai 4.x, pinned) against the emulator's batch and file
// routes over HTTP, `baseURL` = emulator + `/openai/v1`: upload, create, retrieve to COMPLETED, output
// content, list; with faults on, which the client's own retries (429 with Retry-After, 5xx) ride out.
import OpenAI, { APIError, NotFoundError, toFile } from 'openai';
import { DEV_API_KEY } from '../../src/config';
import { emulatorForFile, sleep } from '../support';

const emu = emulatorForFile();

const client = (apiKey = DEV_API_KEY) =>
  new OpenAI({ apiKey, baseURL: `${emu.url}/openai/v1`, maxRetries: 3, timeout: 10_000 });

const MODEL = 'deepseek/deepseek-v3';
const requests = ['one', 'two', 'three'].map((word, i) => ({
  custom_id: `req-${i}`,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: MODEL, messages: [{ role: 'user', content: `say ${word}` }], max_tokens: 16 },
}));
const jsonl = requests.map((r) => JSON.stringify(r)).join('\n');

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED']);

describe('openai 4.x against the emulator', () => {
  it('runs a batch: upload, create, retrieve to COMPLETED, output content, list, under faults', async () => {
    await emu.admin('PUT', '/faults', {
      routes: {
        uploadBatchInputFile: { errorRate5xx: 1, status5xx: 503, count: 1 },
        createBatch: { rate429: 1, retryAfterSeconds: 0, count: 2 },
        getBatch: { errorRate5xx: 1, status5xx: 502, count: 2 },
      },
    });
    const openai = client();
    const upload = async (maxRetries?: number) =>
      openai.files.create(
        { file: await toFile(Buffer.from(jsonl), 'batch-input.jsonl'), purpose: 'batch' },
        maxRetries === undefined ? {} : { maxRetries },
      );

    // openai 4.x re-sends a multipart body it has already streamed when it retries, and the retry then
    // waits for bytes that never come (found here: plain fetch retries the same upload fine). So the
    // upload's 503 is met without client retries, as a caller that retries uploads itself would.
    const refused = await upload(0).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(503);
    const file = await upload();
    expect(file).toEqual(expect.objectContaining({ object: 'file', purpose: 'batch', filename: 'batch-input.jsonl' }));

    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      // The platform's window is 48 h; openai 4.x's types only know OpenAI's 24 h.
      completion_window: '48h' as '24h',
      metadata: { run: 'compat-openai' },
    });
    expect(created.input_file_id).toBe(file.id);

    let batch = created;
    for (let i = 0; i < 400 && !TERMINAL.has(batch.status); i++) {
      await sleep(25);
      batch = await openai.batches.retrieve(created.id);
    }
    expect(batch.status).toBe('COMPLETED');
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    expect(batch.output_file_id).toEqual(expect.any(String));

    const content = await openai.files.content(batch.output_file_id!);
    const lines = (await content.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { custom_id: string; response: { status_code: number; body: { model: string } } });
    expect(lines.map((l) => l.custom_id).sort()).toEqual(['req-0', 'req-1', 'req-2']);
    for (const line of lines) {
      expect(line.response.status_code).toBe(200);
      expect(line.response.body.model).toBe(MODEL);
    }

    const listed = await openai.batches.list({ limit: 10 });
    expect(listed.data.map((b) => b.id)).toContain(created.id);
    const files = await openai.files.list();
    expect(files.data.map((f) => f.id)).toEqual(expect.arrayContaining([file.id, batch.output_file_id]));

    // The client retried the faults away, and each paid call was carried out once.
    const counters = await emu.admin('GET', '/counters');
    expect(counters.faultsInjected.byKind.error5xx).toBe(3);
    expect(counters.faultsInjected.byKind.rate429).toBe(2);
    expect(counters.requests.createBatch).toBe(3);
    expect(Object.values(counters.paid.byRoute.createBatch as Record<string, number>)).toEqual([1]);
  });

  it('parses the platform error body into the client errors', async () => {
    const missing = await client()
      .batches.retrieve('batch_does_not_exist')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).status).toBe(404);

    const key = 'sk-unknown-key-0123456789';
    const unauthorized = await client(key)
      .batches.list()
      .catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(APIError);
    expect((unauthorized as APIError).status).toBe(401);
    expect((unauthorized as APIError).message).not.toContain(key);
  });
});
