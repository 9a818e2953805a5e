// Every validation rule of the spec, as a table of bad inputs. Each is refused by the client before
// anything is sent (the emulator's request counter does not move), with an error naming the field
// and the rule; where it can be sent raw, the emulator refuses it too with 400 and a platform body.
import type { PlatformClient } from '../../src/platform-client/client';
import { PlatformError } from '../../src/platform-client/errors';
import { billRangeMessage, toJsonl } from '@platform-ops/client';
import { pngDataUrl } from '../helpers/images';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

const X = (n: number) => 'x'.repeat(n);
const I2V = '/v3/async/vendor-v3.0-std-i2v';
const T2V = '/v3/async/vendor-v3.0-pro-t2v';
const JAN_1_2026 = 1_767_225_600;
const DAY = 86_400;
const goodImage = pngDataUrl(1024, 576);
const chatLine = (id: string, model = 'm-1') => ({
  custom_id: id,
  body: { model, messages: [{ role: 'user', content: 'hi' }] },
});

interface Case {
  name: string;
  call: (c: PlatformClient) => Promise<unknown>;
  field: string;
  rule: string | RegExp;
  /** The same bad input sent raw to the emulator, which must refuse it too. */
  raw?: { method: string; path: string; json?: unknown; query?: Record<string, string> };
}

const i2v = (body: Record<string, unknown>): Case['raw'] => ({ method: 'POST', path: I2V, json: body });
const t2v = (body: Record<string, unknown>): Case['raw'] => ({ method: 'POST', path: T2V, json: body });
const bills = (q: Record<string, number | string>): Case['raw'] => ({
  method: 'GET',
  path: '/openapi/v1/billing/apikey/bill/list',
  query: Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])),
});

function i2vCase(name: string, body: Record<string, unknown>, field: string, rule: string | RegExp): Case {
  const req = { image: goodImage, prompt: 'a cat', ...body };
  return { name, call: (c) => c.submitImageToVideo(req), field, rule, raw: i2v(req) };
}
function t2vCase(name: string, body: Record<string, unknown>, field: string, rule: string | RegExp): Case {
  return { name, call: (c) => c.submitTextToVideo(body), field, rule, raw: t2v(body) };
}
function billCase(name: string, q: Record<string, number | string>, field: string, rule: string | RegExp): Case {
  return { name, call: (c) => c.listBills(q as never), field, rule, raw: bills(q) };
}

const cases: Case[] = [
  // Templates and products
  {
    name: 'templates: negative limit',
    call: (c) => c.listTemplates({ limit: -1 }),
    field: 'limit',
    rule: 'must be at least 0',
  },
  {
    name: 'templates: cursor over 1024',
    call: (c) => c.listTemplates({ cursor: X(1025) }),
    field: 'cursor',
    rule: 'must be at most 1024 characters long',
  },
  {
    name: 'templates: name over 255',
    call: (c) => c.listTemplates({ name: X(256) }),
    field: 'name',
    rule: 'must be at most 255 characters long',
  },
  {
    name: 'templates: member_ids over 255',
    call: (c) => c.listTemplates({ member_ids: X(256) }),
    field: 'member_ids',
    rule: 'must be at most 255 characters long',
  },
  {
    name: 'products: unknown type',
    call: (c) => c.listProducts({ productType: 'tpu' as never }),
    field: 'productType',
    rule: 'must be one of "gpu", "cpu"',
  },
  {
    name: 'products: unknown category',
    call: (c) => c.listProducts({ category: 'vm' as never }),
    field: 'category',
    rule: 'must be one of "serverless", "instance"',
  },
  {
    name: 'products: negative cpu tier',
    call: (c) => c.listProducts({ cpuCores: -1 }),
    field: 'cpuCores',
    rule: 'must be at least 0',
  },
  {
    name: 'products: fractional memory tier',
    call: (c) => c.listProducts({ memoryGb: 1.5 }),
    field: 'memoryGb',
    rule: 'must be an integer',
  },
  {
    name: 'products: unknown billing method',
    call: (c) => c.listProducts({ billingMethod: 'free' as never }),
    field: 'billingMethod',
    rule: 'must be one of "postpaid", "prepaid", "spot"',
  },
  {
    name: 'products: cursor over 1024',
    call: (c) => c.listProducts({ cursor: X(1025) }),
    field: 'cursor',
    rule: 'must be at most 1024 characters long',
  },
  // Instances
  {
    name: 'renew: empty instance id',
    call: (c) => c.renewInstance({ instanceId: '', months: 1 }),
    field: 'instanceId',
    rule: 'must not be empty',
  },
  {
    name: 'renew: instance id over 255',
    call: (c) => c.renewInstance({ instanceId: X(256), months: 1 }),
    field: 'instanceId',
    rule: 'must be at most 255 characters long',
  },
  {
    name: 'renew: zero months',
    call: (c) => c.renewInstance({ instanceId: 'inst-demo-1', months: 0 }),
    field: 'months',
    rule: 'must be greater than 0',
    raw: { method: 'PUT', path: '/gpus/v2/instances/inst-demo-1/renew', json: { months: 0 } },
  },
  {
    name: 'renew: fractional months',
    call: (c) => c.renewInstance({ instanceId: 'inst-demo-1', months: 1.5 }),
    field: 'months',
    rule: 'must be an integer',
    raw: { method: 'PUT', path: '/gpus/v2/instances/inst-demo-1/renew', json: { months: 1.5 } },
  },
  {
    name: 'restart: empty instance id',
    call: (c) => c.restartInstance({ instanceId: '' }),
    field: 'instanceId',
    rule: 'must not be empty',
    raw: { method: 'POST', path: '/gpu-instance/openapi/v1/gpu/instance/restart', json: { instanceId: '' } },
  },
  {
    name: 'get instance: id over 255',
    call: (c) => c.getInstance({ instanceId: X(256) }),
    field: 'instanceId',
    rule: 'must be at most 255 characters long',
  },
  // Image-to-video
  i2vCase('i2v: missing image', { image: undefined }, 'image', 'is required'),
  i2vCase(
    'i2v: gif image URL',
    { image: 'https://cdn.example.com/a.gif' },
    'image',
    'must be a .jpg, .jpeg or .png image (URL ends in .gif)',
  ),
  i2vCase(
    'i2v: image too small',
    { image: pngDataUrl(200, 400) },
    'image',
    'width and height must be at least 300 px (is 200x400)',
  ),
  i2vCase(
    'i2v: image too wide',
    { image: pngDataUrl(1300, 500) },
    'image',
    'aspect ratio must be between 1:2.5 and 2.5:1 (is 1300:500)',
  ),
  i2vCase('i2v: missing prompt', { prompt: undefined }, 'prompt', 'is required'),
  i2vCase('i2v: prompt over 2500', { prompt: X(2501) }, 'prompt', 'must be at most 2500 characters long'),
  i2vCase(
    'i2v: negative_prompt over 2500',
    { negative_prompt: X(2501) },
    'negative_prompt',
    'must be at most 2500 characters long',
  ),
  i2vCase('i2v: duration below 3', { duration: 2 }, 'duration', 'must be at least 3'),
  i2vCase('i2v: duration above 15', { duration: 16 }, 'duration', 'must be at most 15'),
  i2vCase('i2v: cfg_scale above 1', { cfg_scale: 1.2 }, 'cfg_scale', 'must be at most 1'),
  i2vCase('i2v: cfg_scale below 0', { cfg_scale: -0.1 }, 'cfg_scale', 'must be at least 0'),
  i2vCase('i2v: sound not boolean', { sound: 'yes' }, 'sound', 'must be a boolean'),
  i2vCase(
    'i2v: end_image with multi_prompt',
    { end_image: goodImage, multi_prompt: [{ prompt: 'a', duration: 5 }] },
    'end_image',
    'cannot be combined with multi_prompt',
  ),
  i2vCase(
    'i2v: bad end_image',
    { end_image: 'https://cdn.example.com/end.bmp' },
    'end_image',
    /\.jpg, \.jpeg or \.png/,
  ),
  i2vCase('i2v: shot without duration', { multi_prompt: [{ prompt: 'a' }] }, 'multi_prompt[0].duration', 'is required'),
  i2vCase('i2v: unknown field', { negative_promt: 'typo' }, 'negative_promt', 'is not a known field'),
  // Text-to-video
  t2vCase(
    't2v: prompt with multi_prompt',
    { prompt: 'a', multi_prompt: ['b'] },
    'prompt',
    'cannot be combined with multi_prompt',
  ),
  t2vCase(
    't2v: neither prompt nor multi_prompt',
    { duration: 5 },
    'prompt',
    'is required (or give multi_prompt instead)',
  ),
  t2vCase(
    't2v: aspect ratio',
    { prompt: 'a', aspect_ratio: '4:3' },
    'aspect_ratio',
    'must be one of "16:9", "9:16", "1:1"',
  ),
  t2vCase('t2v: duration above 15', { prompt: 'a', duration: 20 }, 'duration', 'must be at most 15'),
  t2vCase('t2v: prompt over 2500', { prompt: X(2501) }, 'prompt', 'must be at most 2500 characters long'),
  t2vCase(
    't2v: shot over 2500',
    { multi_prompt: ['ok', X(2501)] },
    'multi_prompt[1]',
    'must be at most 2500 characters long',
  ),
  // Decision evaluation
  {
    name: 'decision: nine images',
    call: (c) =>
      c.decisionEvaluation({
        kind: 'yes_no',
        question: 'safe?',
        state: Array.from({ length: 9 }, () => ({ image: 'https://img.example.com/a.png' })),
      }),
    field: 'state',
    rule: 'must hold at most 8 images (has 9)',
    raw: {
      method: 'POST',
      path: '/v3/decision-evaluation',
      json: {
        model: 'vendor/decision-27b-vl',
        kind: 'yes_no',
        question: 'safe?',
        state: Array.from({ length: 9 }, () => ({ image: 'https://img.example.com/a.png' })),
      },
    },
  },
  {
    name: 'decision: choice without options',
    call: (c) => c.decisionEvaluation({ kind: 'choice', question: 'which?', state: 'text' }),
    field: 'options',
    rule: 'is required when kind is "choice"',
  },
  {
    name: 'decision: wrong model',
    call: (c) => c.decisionEvaluation({ model: 'other' as never, kind: 'yes_no', question: 'q', state: 's' }),
    field: 'model',
    rule: 'must be one of "vendor/decision-27b-vl"',
  },
  {
    name: 'decision: http image',
    call: (c) =>
      c.decisionEvaluation({ kind: 'yes_no', question: 'q', state: [{ image: 'http://a.example.com/x.png' }] }),
    field: 'state[0].image',
    rule: /https URL or a data:image/,
  },
  {
    name: 'decision: empty question',
    call: (c) => c.decisionEvaluation({ kind: 'yes_no', question: '', state: 's' }),
    field: 'question',
    rule: 'must not be empty',
  },
  {
    name: 'decision: body over 64 MB',
    call: (c) => c.decisionEvaluation({ kind: 'yes_no', question: 'q', state: X(64 * 1024 * 1024 + 1) }),
    field: '',
    rule: /^request body must be at most 64 MB/,
  },
  // Batches
  {
    name: 'batch file: repeated custom_id',
    call: (c) => c.uploadBatchInputFile({ content: toJsonl([chatLine('a'), chatLine('a')]) }),
    field: 'line 2.custom_id',
    rule: 'must be unique ("a" is also on line 1)',
  },
  {
    name: 'batch file: two models',
    call: (c) => c.uploadBatchInputFile({ content: toJsonl([chatLine('a'), chatLine('b', 'm-2')]) }),
    field: 'line 2.body.model',
    rule: /single model "m-1"/,
  },
  {
    name: 'batch file: not JSON',
    call: (c) => c.uploadBatchInputFile({ content: '{"custom_id":"a"\n' }),
    field: 'line 1',
    rule: 'must be a JSON object',
  },
  {
    name: 'batch file: body does not fit the endpoint',
    call: (c) => c.uploadBatchInputFile({ content: toJsonl([chatLine('a')]), endpoint: '/v1/completions' }),
    field: 'line 1',
    rule: 'body.prompt is required for /v1/completions',
  },
  {
    name: 'batch file: over 50,000 requests',
    call: (c) =>
      c.uploadBatchInputFile({ content: toJsonl(Array.from({ length: 50_001 }, (_, i) => chatLine(`r${i}`))) }),
    field: 'file',
    rule: 'must hold at most 50000 requests (has 50001)',
  },
  {
    name: 'batch: unknown endpoint',
    call: (c) => c.createBatch({ input_file_id: 'file-1', endpoint: '/v1/embeddings' as never }),
    field: 'endpoint',
    rule: 'must be one of "/v1/chat/completions", "/v1/completions"',
    raw: { method: 'POST', path: '/openai/v1/batches', json: { input_file_id: 'file-1', endpoint: '/v1/embeddings' } },
  },
  {
    name: 'batch: completion window not 48h',
    call: (c) =>
      c.createBatch({ input_file_id: 'file-1', endpoint: '/v1/completions', completion_window: '24h' as never }),
    field: 'completion_window',
    rule: 'must be one of "48h"',
    raw: {
      method: 'POST',
      path: '/openai/v1/batches',
      json: { input_file_id: 'file-1', endpoint: '/v1/completions', completion_window: '24h' },
    },
  },
  // Account
  {
    name: 'budget: negative cost',
    call: (c) => c.checkMemberBudget({ member_id: 'member-demo', cost: -1 }),
    field: 'cost',
    rule: 'must be at least 0',
    raw: {
      method: 'POST',
      path: '/openapi/v1/user/team/check-budget-by-cost',
      json: { member_id: 'member-demo', cost: -1 },
    },
  },
  {
    name: 'budget: fractional cost',
    call: (c) => c.checkMemberBudget({ member_id: 'member-demo', cost: 1.5 }),
    field: 'cost',
    rule: 'must be an integer',
    raw: {
      method: 'POST',
      path: '/openapi/v1/user/team/check-budget-by-cost',
      json: { member_id: 'member-demo', cost: 1.5 },
    },
  },
  {
    name: 'budget: missing member',
    call: (c) => c.checkMemberBudget({ cost: 1 } as never),
    field: 'member_id',
    rule: 'is required',
    raw: { method: 'POST', path: '/openapi/v1/user/team/check-budget-by-cost', json: { cost: 1 } },
  },
  billCase(
    'bills: Hour range over 7 days',
    { cycleType: 'Hour', startTime: JAN_1_2026, endTime: JAN_1_2026 + 7 * DAY + 1 },
    'endTime',
    billRangeMessage('Hour'),
  ),
  billCase(
    'bills: Day range over 31 days',
    { cycleType: 'Day', startTime: JAN_1_2026, endTime: JAN_1_2026 + 31 * DAY + 1 },
    'endTime',
    billRangeMessage('Day'),
  ),
  billCase(
    'bills: Month range over 31 days',
    { cycleType: 'Month', startTime: JAN_1_2026, endTime: JAN_1_2026 + 40 * DAY },
    'endTime',
    'time range must not exceed 31 days for cycleType "Month"',
  ),
  billCase(
    'bills: before 2026',
    { cycleType: 'Day', startTime: JAN_1_2026 - 1, endTime: JAN_1_2026 + DAY },
    'startTime',
    'must be at or after 2026-01-01 00:00:00 UTC (1767225600)',
  ),
  billCase(
    'bills: end not after start',
    { cycleType: 'Day', startTime: JAN_1_2026 + DAY, endTime: JAN_1_2026 + DAY },
    'endTime',
    'must be greater than startTime',
  ),
  billCase(
    'bills: unknown cycle',
    { cycleType: 'Year', startTime: JAN_1_2026, endTime: JAN_1_2026 + DAY },
    'cycleType',
    'must be one of "Hour", "Day", "Week", "Month"',
  ),
  { name: 'quotas: empty filter', call: (c) => c.listQuotas({ modal: '' }), field: 'modal', rule: 'must not be empty' },
  { name: 'task result: empty id', call: (c) => c.getTaskResult(''), field: 'task_id', rule: 'must not be empty' },
  { name: 'batch: empty id', call: (c) => c.getBatch(''), field: 'batchId', rule: 'must not be empty' },
];

describe('request validation', () => {
  let emu: TestEmulator;
  let client: PlatformClient;
  beforeAll(async () => {
    emu = await startTestEmulator();
    client = emu.client();
  });
  afterAll(() => emu.close());

  const requestsSeen = async () =>
    Object.values((await emu.admin<{ requests: Record<string, number> }>('GET', '/counters')).requests).reduce(
      (a, b) => a + b,
      0,
    );

  it.each(cases.map((c) => [c.name, c] as const))('client refuses %s, naming the field and the rule', async (_n, c) => {
    const before = await requestsSeen();
    const err = await c.call(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PlatformError);
    const pe = err as PlatformError;
    expect(pe.kind).toBe('invalid_request');
    expect(pe.retryable).toBe(false);
    const issue = pe.issues?.find((i) => i.field === c.field);
    expect(issue).toBeDefined();
    if (typeof c.rule === 'string') expect(issue!.rule).toBe(c.rule);
    else expect(issue!.rule).toMatch(c.rule);
    expect(pe.message).toContain(c.field ? `${c.field}: ` : issue!.rule);
    expect(pe.message).toMatch(/nothing was sent/);
    expect(await requestsSeen()).toBe(before);
  });

  const rawCases = cases.filter((c) => c.raw);
  it.each(rawCases.map((c) => [c.name, c] as const))(
    'emulator refuses %s with 400 and a platform body',
    async (_n, c) => {
      const res = await emu.raw(c.raw!.method, c.raw!.path, { json: c.raw!.json, query: c.raw!.query });
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        code: number;
        reason: string;
        message: string;
        metadata: { trace_id: string };
      };
      expect(body.code).toBe(400);
      expect(body.reason).toBe('INVALID_REQUEST_BODY');
      expect(body.metadata.trace_id).toEqual(expect.any(String));
      if (typeof c.rule === 'string') expect(body.message).toContain(c.rule);
      else expect(body.message).toMatch(c.rule);
    },
  );

  it('words the bill-range error exactly as the spec does', async () => {
    const res = await emu.raw('GET', '/openapi/v1/billing/apikey/bill/list', {
      query: { cycleType: 'Hour', startTime: String(JAN_1_2026), endTime: String(JAN_1_2026 + 8 * DAY) },
    });
    const body = (await res.json()) as { message: string };
    expect(res.status).toBe(400);
    expect(body.message).toBe('time range must not exceed 7 days for cycleType "Hour"');
  });
});
