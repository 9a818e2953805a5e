// The batch emulator over real HTTP: a bare fastify app with a fixed caller, the batch routes, a
// BatchStore on an EmulatorClock whose real time stands still (so only advance() moves it), and a fake
// charge that records its calls.
import Fastify, { type FastifyInstance } from 'fastify';
import { EmulatorClock } from '../src/clock';
import type { Caller, ChargeInput } from '../src/types';
import {
  BatchStore,
  registerBatchRoutes,
  type BatchEnv,
  type BatchList,
  type BatchObject,
  type FileObjectBody,
} from '../src/batches';
import { Batch, BatchOutputLine, DEFAULT_PATHS, FileObject, ListBatchesResponse } from '@platform-ops/client';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
const CALLER: Caller = {
  apiKeyId: 'key_1',
  apiKeyName: 'test key',
  apiKeyMask: 'sk_****abcd',
  userId: 'user_1',
  memberId: 'member_1',
};
const SETTINGS = { validatingMs: 1_000, perRequestMs: 1_000, finalizingMs: 1_000, cancellingMs: 1_000 };

let app: FastifyInstance;
let base: string;
let clock: EmulatorClock;
let store: BatchStore;
const charges: ChargeInput[] = [];

beforeAll(async () => {
  clock = new EmulatorClock(1, () => T0);
  let seq = 0;
  const env: BatchEnv = {
    now: () => clock.now(),
    newId: (prefix) => `${prefix}_${++seq}`,
    charge: (input) => {
      charges.push(input);
    },
  };
  store = new BatchStore(env, SETTINGS);
  app = Fastify();
  // Stands in for the server's auth hook; `x-test-user` lets a test act as someone else.
  app.addHook('onRequest', (request, _reply, done) => {
    const user = request.headers['x-test-user'];
    request.caller = typeof user === 'string' ? { ...CALLER, userId: user, apiKeyId: `key_${user}` } : CALLER;
    done();
  });
  registerBatchRoutes(app, { env, store, paths: DEFAULT_PATHS });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await app.close();
});

beforeEach(() => {
  // Each test starts at T0 (env.now reads the variable, so a new clock takes effect at once).
  clock = new EmulatorClock(1, () => T0);
  store.reset();
  charges.length = 0;
});

// ---- helpers ----

/** The platform error body. */
interface ErrorBody {
  code: number;
  reason: string;
  message: string;
  metadata: { trace_id: string };
}
/** A line of an output or error file, as the emulator writes it. */
interface OutputLine {
  id: string;
  custom_id: string;
  response: {
    status_code: number;
    request_id: string;
    body: { object: string; model: string; usage: { prompt_tokens: number; completion_tokens: number } };
  } | null;
  error: { code: string; message: string } | null;
}

const chatLine = (customId: string, content = `question ${customId}`, model = 'deepseek/deepseek-v3') => ({
  custom_id: customId,
  body: { model, messages: [{ role: 'user', content }] },
});
const jsonl = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

/** Sends a JSON request; the answer is read as `T` (tests check its shape). */
async function call<T = ErrorBody>(
  method: string,
  path: string,
  body?: unknown,
  user?: string,
): Promise<{ status: number; json: T }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (user) headers['x-test-user'] = user;
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as T };
}

async function upload<T = ErrorBody>(
  text: string,
  purpose: string | null = 'batch',
): Promise<{ status: number; json: T }> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'application/jsonl' }), 'input.jsonl');
  if (purpose !== null) form.append('purpose', purpose);
  const res = await fetch(`${base}/openai/v1/files`, { method: 'POST', body: form });
  return { status: res.status, json: (await res.json()) as T };
}

async function uploadOk(lines: unknown[]): Promise<string> {
  const { status, json } = await upload<FileObjectBody>(jsonl(lines));
  expect(status).toBe(200);
  return json.id;
}

async function createBatch(lines: unknown[], extra: Record<string, unknown> = {}): Promise<BatchObject> {
  const input_file_id = await uploadOk(lines);
  const { status, json } = await call<BatchObject>('POST', '/openai/v1/batches', {
    input_file_id,
    endpoint: '/v1/chat/completions',
    completion_window: '48h',
    ...extra,
  });
  expect(status).toBe(200);
  return json;
}

async function getBatch(id: string): Promise<BatchObject> {
  const { status, json } = await call<BatchObject>('GET', `/openai/v1/batches/${id}`);
  expect(status).toBe(200);
  // Every batch the emulator answers parses with the client's own schema.
  expect(Batch.safeParse(json).success).toBe(true);
  return json;
}

async function content(fileId: string): Promise<OutputLine[]> {
  const res = await fetch(`${base}/openai/v1/files/${fileId}/content`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/jsonl/);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const parsed = JSON.parse(l) as unknown;
      expect(BatchOutputLine.safeParse(parsed).success).toBe(true);
      return parsed as OutputLine;
    });
}

const counts = (b: BatchObject) => [b.status, b.request_counts.completed, b.request_counts.failed];

// ---- files ----

describe('files', () => {
  it('uploads a JSONL input and answers the file object, its content, and the list', async () => {
    const text = jsonl([chatLine('a'), chatLine('b')]);
    const { status, json } = await upload<FileObjectBody>(text);
    expect(status).toBe(200);
    expect(FileObject.safeParse(json).success).toBe(true);
    expect(json).toMatchObject({
      object: 'file',
      bytes: Buffer.byteLength(text),
      filename: 'input.jsonl',
      created_at: Math.floor(T0 / 1000),
      purpose: 'batch',
      metadata: { total_requests: 2 },
    });
    expect((await call<FileObjectBody>('GET', `/openai/v1/files/${json.id}`)).json).toEqual(json);
    const res = await fetch(`${base}/openai/v1/files/${json.id}/content`);
    expect(await res.text()).toBe(text);
    const list = await call<{ object: string; data: FileObjectBody[] }>('GET', '/openai/v1/files');
    expect(list.json).toEqual({ object: 'list', data: [json] });
  });

  it.each([
    ['a duplicate custom_id', [chatLine('a'), chatLine('a')], /line 2\.custom_id: must be unique/],
    [
      'two models',
      [chatLine('a'), chatLine('b', 'x', 'other/model')],
      /line 2\.body\.model: must be the batch's single model/,
    ],
    ['a bad JSON line', [chatLine('a'), chatLine('b'), '{not json'], /line 3: must be a JSON object/],
    ['a line without body', [{ custom_id: 'a' }], /line 1\.body: is required/],
  ])('refuses %s with a 400 naming the line', async (_name, lines, message) => {
    const { status, json } = await upload(jsonl(lines));
    expect(status).toBe(400);
    expect(json.reason).toBe('INVALID_REQUEST_BODY');
    expect(json.message).toMatch(message);
    expect(typeof json.metadata.trace_id).toBe('string');
  });

  it('refuses a missing or wrong purpose, a missing file, and a non-multipart body', async () => {
    expect((await upload(jsonl([chatLine('a')]), null)).json.message).toMatch(/purpose: is required/);
    expect((await upload(jsonl([chatLine('a')]), 'fine-tune')).json.message).toMatch(/purpose: must be one of/);
    const form = new FormData();
    form.append('purpose', 'batch');
    const noFile = await fetch(`${base}/openai/v1/files`, { method: 'POST', body: form });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as ErrorBody).message).toMatch(/file: is required/);
    expect((await call('POST', '/openai/v1/files', { purpose: 'batch' })).status).toBe(400);
  });

  it('deletes a file; unknown, deleted and other users’ files are 404 FILE_NOT_FOUND', async () => {
    const id = await uploadOk([chatLine('a')]);
    expect((await call('GET', `/openai/v1/files/${id}`, undefined, 'user_2')).status).toBe(404);
    expect((await call<unknown>('DELETE', `/openai/v1/files/${id}`)).json).toEqual({
      id,
      object: 'file',
      deleted: true,
    });
    for (const [method, path] of [
      ['GET', `/openai/v1/files/${id}`],
      ['GET', `/openai/v1/files/${id}/content`],
      ['DELETE', `/openai/v1/files/${id}`],
      ['GET', '/openai/v1/files/file_nope'],
    ] as const) {
      const { status, json } = await call(method, path);
      expect([status, json.reason]).toEqual([404, 'FILE_NOT_FOUND']);
    }
  });
});

// ---- create ----

describe('create', () => {
  it('checks the bodies against the endpoint, naming the line', async () => {
    const input_file_id = await uploadOk([chatLine('a'), chatLine('b')]);
    const { status, json } = await call('POST', '/openai/v1/batches', { input_file_id, endpoint: '/v1/completions' });
    expect(status).toBe(400);
    expect(json.message).toMatch(/line 1: body\.prompt is required for \/v1\/completions/);
    expect(json.message).toMatch(/line 2: /);
  });

  it('refuses an unknown input file, a bad body and bad metadata overrides', async () => {
    const unknown = await call('POST', '/openai/v1/batches', { input_file_id: 'file_x', endpoint: '/v1/completions' });
    expect([unknown.status, unknown.json.reason]).toEqual([404, 'FILE_NOT_FOUND']);
    const input_file_id = await uploadOk([chatLine('a')]);
    const window = await call('POST', '/openai/v1/batches', {
      input_file_id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    expect(window.status).toBe(400);
    expect(window.json.message).toMatch(/completion_window/);
    const meta = await call('POST', '/openai/v1/batches', {
      input_file_id,
      endpoint: '/v1/chat/completions',
      metadata: { emulator_per_request_ms: 'soon' },
    });
    expect(meta.status).toBe(400);
    expect(meta.json.message).toMatch(/metadata\.emulator_per_request_ms: must be a number of milliseconds/);
  });
});

// ---- lifecycle ----

describe('lifecycle', () => {
  it('runs VALIDATING → PROGRESS → COMPLETED with rising counters, output and error files, one charge', async () => {
    const lines = [chatLine('r1'), chatLine('r2'), chatLine('r3', 'please [emulator:fail] now'), chatLine('r4')];
    const created = await createBatch(lines, { metadata: { team: 'x' } });
    expect(Batch.safeParse(created).success).toBe(true);
    expect(created).toMatchObject({
      object: 'batch',
      endpoint: '/v1/chat/completions',
      status: 'VALIDATING',
      output_file_id: '',
      error_file_id: '',
      completion_window: '48h',
      created_at: new Date(T0).toISOString(),
      expires_at: new Date(T0 + 48 * HOUR).toISOString(),
      in_progress_at: null,
      completed_at: null,
      updated_at: null,
      version: 1,
      created_by: 'user_1',
      created_by_key_id: 'key_1',
      metadata: { team: 'x' },
      total: 4,
      completed: 0,
      failed: 0,
      request_counts: { total: 4, completed: 0, failed: 0 },
    });
    const id = created.id;

    clock.advance(1_000);
    let b = await getBatch(id);
    expect(counts(b)).toEqual(['PROGRESS', 0, 0]);
    expect(b.in_progress_at).toBe(new Date(T0 + 1_000).toISOString());
    expect(b.version).toBe(2);

    clock.advance(1_000);
    expect(counts(await getBatch(id))).toEqual(['PROGRESS', 1, 0]);
    clock.advance(2_000);
    b = await getBatch(id);
    expect(counts(b)).toEqual(['PROGRESS', 2, 1]);
    expect([b.completed, b.failed, b.total]).toEqual([2, 1, 4]);
    clock.advance(1_000);
    b = await getBatch(id);
    expect(counts(b)).toEqual(['PROGRESS', 3, 1]);
    expect(b.finalizing_at).toBe(new Date(T0 + 5_000).toISOString());
    expect(b.output_file_id).toBe('');
    expect(charges).toHaveLength(0);

    clock.advance(1_000);
    b = await getBatch(id);
    expect(counts(b)).toEqual(['COMPLETED', 3, 1]);
    expect(b.completed_at).toBe(new Date(T0 + 6_000).toISOString());
    expect(b.version).toBe(4);
    expect(b.errors).toMatch(/1 of 4 requests failed/);

    const output = await content(b.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(['r1', 'r2', 'r4']);
    for (const l of output) {
      expect(l.error).toBeNull();
      expect(l.response!.status_code).toBe(200);
      expect(l.response!.body).toMatchObject({ object: 'chat.completion', model: 'deepseek/deepseek-v3' });
      expect(l.response!.body.usage.prompt_tokens).toBeGreaterThan(0);
    }
    const errors = await content(b.error_file_id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      custom_id: 'r3',
      response: { status_code: 400 },
      error: { code: 'emulator_forced_failure' },
    });

    // Billed once, for the successful requests' tokens only.
    const sum = (key: 'prompt_tokens' | 'completion_tokens') =>
      output.reduce((n, l) => n + l.response!.body.usage[key], 0);
    await getBatch(id);
    await call('GET', '/openai/v1/batches');
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      caller: CALLER,
      category: 'llm',
      productName: 'deepseek/deepseek-v3',
      productId: 'llm-batch-deepseek/deepseek-v3',
      usage: { billNum0: String(sum('prompt_tokens')), billNum1: String(sum('completion_tokens')) },
    });
    expect(charges[0].amount).toBeGreaterThan(0);

    // Output files are listed with purpose batch_output.
    const files = (await call<{ data: FileObjectBody[] }>('GET', '/openai/v1/files?purpose=batch_output')).json.data;
    expect(files.map((f) => f.id).sort()).toEqual([b.output_file_id, b.error_file_id].sort());
    expect(files.find((f) => f.id === b.output_file_id)?.metadata.total_requests).toBe(3);
  });

  it('answers text_completion bodies for /v1/completions', async () => {
    const input_file_id = await uploadOk([{ custom_id: 'p1', body: { model: 'm/small', prompt: 'Say hi' } }]);
    const created = await call<BatchObject>('POST', '/openai/v1/batches', {
      input_file_id,
      endpoint: '/v1/completions',
    });
    clock.advance(3_000);
    const b = await getBatch(created.json.id);
    expect(b.status).toBe('COMPLETED');
    const [line] = await content(b.output_file_id);
    expect(line.response!.body).toMatchObject({ object: 'text_completion', model: 'm/small' });
    expect(b.error_file_id).toBe('');
  });

  it('fails a whole batch at the end of validation, without files or charge', async () => {
    const created = await createBatch([chatLine('a'), chatLine('b')], { metadata: { emulator: 'fail' } });
    expect(created.status).toBe('VALIDATING');
    clock.advance(1_000);
    const b = await getBatch(created.id);
    expect(b).toMatchObject({ status: 'FAILED', failed_at: new Date(T0 + 1_000).toISOString(), in_progress_at: null });
    expect(b.errors).toMatch(/validation failed/);
    expect([b.output_file_id, b.error_file_id]).toEqual(['', '']);
    expect(charges).toHaveLength(0);
  });

  it('expires at the end of the 48 h window: partial output, unrun requests in the error file, partial charge', async () => {
    // 20 h per request: two of the four finish within the window.
    const created = await createBatch([chatLine('a'), chatLine('b'), chatLine('c'), chatLine('d')], {
      metadata: { emulator_per_request_ms: String(20 * HOUR) },
    });
    const id = created.id;
    clock.advance(47 * HOUR);
    expect(counts(await getBatch(id))).toEqual(['PROGRESS', 2, 0]);
    clock.advance(2 * HOUR);
    const b = await getBatch(id);
    expect(counts(b)).toEqual(['EXPIRED', 2, 0]);
    expect(b.expired_at).toBe(b.expires_at);
    expect(b.expired_at).toBe(new Date(T0 + 48 * HOUR).toISOString());
    expect(b.completed_at).toBeNull();
    expect(b.errors).toMatch(/2 of 4 requests did not finish/);
    const output = await content(b.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(['a', 'b']);
    const errors = await content(b.error_file_id);
    expect(errors.map((l) => [l.custom_id, l.response, l.error!.code])).toEqual([
      ['c', null, 'batch_expired'],
      ['d', null, 'batch_expired'],
    ]);
    expect(charges).toHaveLength(1);
    const tokens = output.reduce((n, l) => n + l.response!.body.usage.prompt_tokens, 0);
    expect(charges[0].usage?.billNum0).toBe(String(tokens));
  });

  it('cancels: CANCELLING (idempotent) → CANCELLED, work stops, finished requests delivered and billed', async () => {
    const created = await createBatch([chatLine('a'), chatLine('b'), chatLine('c')]);
    const id = created.id;
    clock.advance(2_000);
    expect(counts(await getBatch(id))).toEqual(['PROGRESS', 1, 0]);
    const cancel = await call<BatchObject>('POST', `/openai/v1/batches/${id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ status: 'CANCELLING', cancelling_at: new Date(T0 + 2_000).toISOString() });
    clock.advance(500);
    const again = await call<BatchObject>('POST', `/openai/v1/batches/${id}/cancel`);
    expect([again.status, again.json.status, again.json.cancelling_at]).toEqual([
      200,
      'CANCELLING',
      cancel.json.cancelling_at,
    ]);
    clock.advance(500);
    const b = await getBatch(id);
    expect(counts(b)).toEqual(['CANCELLED', 1, 0]);
    expect(b.cancelled_at).toBe(new Date(T0 + 3_000).toISOString());
    expect((await content(b.output_file_id)).map((l) => l.custom_id)).toEqual(['a']);
    const errors = await content(b.error_file_id);
    expect(errors.map((l) => l.error!.code)).toEqual(['batch_cancelled', 'batch_cancelled']);
    clock.advance(10_000);
    expect(counts(await getBatch(id))).toEqual(['CANCELLED', 1, 0]);
    expect((await call<BatchObject>('POST', `/openai/v1/batches/${id}/cancel`)).json.status).toBe('CANCELLED');
    expect(charges).toHaveLength(1);
  });

  it('refuses to cancel a finished batch', async () => {
    const created = await createBatch([chatLine('a')]);
    clock.advance(3_000);
    const { status, json } = await call('POST', `/openai/v1/batches/${created.id}/cancel`);
    expect([status, json.reason]).toEqual([400, 'BATCH_ALREADY_FINISHED']);
    expect(json.message).toMatch(/already COMPLETED/);
  });

  it('fails requests by a repeatable hash of custom_id under requestFailureRate', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => chatLine(`req-${i}`));
    const failing = async () => {
      const created = await createBatch(lines, {
        metadata: { emulator_request_failure_rate: '0.5', emulator_per_request_ms: '0' },
      });
      clock.advance(2_000);
      const b = await getBatch(created.id);
      return { b, ids: (await content(b.error_file_id)).map((l) => l.custom_id) };
    };
    const first = await failing();
    const second = await failing();
    expect(first.ids.length).toBeGreaterThan(5);
    expect(first.ids.length).toBeLessThan(35);
    expect(second.ids).toEqual(first.ids);
    expect(first.b.request_counts).toEqual({ total: 40, completed: 40 - first.ids.length, failed: first.ids.length });
    expect(store.view(first.b.id)?.failingCustomIds).toEqual(first.ids);
  });

  it('settles and bills a batch nobody polls', async () => {
    const created = await createBatch([chatLine('a')]);
    clock.advance(3_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(charges).toHaveLength(1);
    expect(store.view(created.id)).toMatchObject({ settled: true, batch: { status: 'COMPLETED' } });
  });
});

// ---- list, lookups, settings ----

describe('list and lookups', () => {
  it('lists newest first with after/limit pagination', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createBatch([chatLine(`x${i}`)])).id);
    const page1 = await call<BatchList>('GET', '/openai/v1/batches?limit=2');
    expect(ListBatchesResponse.safeParse(page1.json).success).toBe(true);
    expect(page1.json).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
    expect(page1.json.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    const page2 = await call<BatchList>('GET', `/openai/v1/batches?limit=2&after=${page1.json.last_id}`);
    expect(page2.json).toMatchObject({ first_id: ids[0], last_id: ids[0], has_more: false });
    const other = await call<BatchList>('GET', '/openai/v1/batches', undefined, 'user_2');
    expect(other.json).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    expect((await call('GET', '/openai/v1/batches?limit=0')).status).toBe(400);
    expect((await call('GET', '/openai/v1/batches?after=batch_nope')).status).toBe(400);
  });

  it('answers 404 BATCH_NOT_FOUND for unknown and other users’ batches', async () => {
    const created = await createBatch([chatLine('a')]);
    for (const [method, path, user] of [
      ['GET', '/openai/v1/batches/batch_nope', undefined],
      ['POST', '/openai/v1/batches/batch_nope/cancel', undefined],
      ['GET', `/openai/v1/batches/${created.id}`, 'user_2'],
    ] as const) {
      const { status, json } = await call(method, path, undefined, user);
      expect([status, json.reason]).toEqual([404, 'BATCH_NOT_FOUND']);
    }
    expect(store.view('batch_nope')).toBeUndefined();
  });

  it('validates settings updates and applies them to new batches only', async () => {
    expect(() => store.updateSettings({ perRequestMs: -1 })).toThrow(/perRequestMs/);
    const before = await createBatch([chatLine('a'), chatLine('b')]);
    expect(store.updateSettings({ perRequestMs: 10_000 }).perRequestMs).toBe(10_000);
    const after = await createBatch([chatLine('c'), chatLine('d')]);
    clock.advance(4_000);
    expect((await getBatch(before.id)).status).toBe('COMPLETED');
    expect(counts(await getBatch(after.id))).toEqual(['PROGRESS', 0, 0]);
    store.reset();
    expect(store.settings.perRequestMs).toBe(SETTINGS.perRequestMs);
  });
});
