// The happy path of every operation, client and emulator together over real HTTP.
import type { PlatformClient } from '../../src/platform-client/client';
import { parseTenThousandths } from '../../src/platform/money';
import { isTerminalTaskStatus, toJsonl, type TaskResult } from '@platform-ops/client';
import { pngDataUrl } from '../helpers/images';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

const JAN_1_2026 = 1_767_225_600;

async function waitForTask(client: PlatformClient, taskId: string): Promise<TaskResult> {
  for (let i = 0; i < 200; i++) {
    const result = await client.getTaskResult(taskId);
    if (isTerminalTaskStatus(result.task.status)) return result;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

describe('platform client against the emulator', () => {
  let emu: TestEmulator;
  let client: PlatformClient;
  beforeAll(async () => {
    emu = await startTestEmulator({ clockSpeed: 50 });
    client = emu.client();
  });
  afterAll(() => emu.close());

  it('lists templates page by page and iterates over all of them', async () => {
    const first = await client.listTemplates({ limit: 10 });
    expect(first.data).toHaveLength(10);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).not.toBe('');
    const second = await client.listTemplates({ limit: 10, cursor: first.next_cursor });
    expect(second.data[0].id).not.toBe(first.data[0].id);
    const all: string[] = [];
    for await (const t of client.iterateTemplates({ limit: 7 })) all.push(t.id);
    expect(all.length).toBeGreaterThan(20);
    expect(new Set(all).size).toBe(all.length);
    const last = await client.listTemplates({ limit: all.length });
    expect(last.has_more).toBe(false);
    expect(last.next_cursor).toBe('');
  });

  it('lists products with every filter', async () => {
    const all = await client.listProducts();
    expect(all.data.length).toBeGreaterThan(0);
    expect(all.data.every((p) => p.type === 'gpu')).toBe(true); // gpu is the default type
    const cpu = await client.listProducts({ productType: 'cpu' });
    expect(cpu.data.length).toBeGreaterThan(0);
    expect(cpu.data.every((p) => p.type === 'cpu')).toBe(true);
    const spot = await client.listProducts({ billingMethod: 'spot', category: 'instance' });
    expect(spot.data.every((p) => p.billing_methods?.includes('spot') && p.category === 'instance')).toBe(true);
    const filtered = await client.listProducts({ cpuCores: 0, memoryGb: 0, rootfsGb: 0, regionIds: ['us-east-1'] });
    expect(filtered.data.every((p) => p.region_ids?.includes('us-east-1'))).toBe(true);
    const ids: string[] = [];
    for await (const p of client.iterateProducts({ limit: 1 })) ids.push(p.id);
    expect(ids).toEqual(all.data.map((p) => p.id));
  });

  it('renews an instance, extending its expiry', async () => {
    const before = await client.getInstance({ instanceId: 'inst-demo-1' });
    expect(await client.renewInstance({ instanceId: 'inst-demo-1', months: 2 })).toEqual({});
    const after = await client.getInstance({ instanceId: 'inst-demo-1' });
    expect(Number(after.endTime)).toBeGreaterThan(Number(before.endTime));
  });

  it('restarts an instance through restarting to running', async () => {
    await client.restartInstance({ instanceId: 'inst-demo-1' });
    const seen = new Set<string>();
    for (let i = 0; i < 200 && !seen.has('running'); i++) {
      seen.add((await client.getInstance({ instanceId: 'inst-demo-1' })).status);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen.has('restarting') || seen.has('toRestart')).toBe(true);
    expect(seen.has('running')).toBe(true);
  });

  it('runs an image-to-video task to success, with outputs that download', async () => {
    const { task_id } = await client.submitImageToVideo({
      image: pngDataUrl(1280, 720),
      prompt: 'a cat surfing',
      duration: 5,
    });
    const result = await waitForTask(client, task_id);
    expect(result.task.status).toBe('TASK_STATUS_SUCCEED');
    expect(result.videos.length).toBeGreaterThan(0);
    const video = await fetch(result.videos[0].video_url);
    expect(video.status).toBe(200);
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('runs a text-to-video task, with multi_prompt shots as strings or objects', async () => {
    const { task_id } = await client.submitTextToVideo({
      multi_prompt: ['a sunrise', { prompt: 'a sunset', duration: 4 }],
      aspect_ratio: '9:16',
    });
    const result = await waitForTask(client, task_id);
    expect(result.task.status).toBe('TASK_STATUS_SUCCEED');
    expect(result.images).toEqual([]);
  });

  it('evaluates a decision', async () => {
    const res = await client.decisionEvaluation({
      kind: 'choice',
      state: ['a photo', { image: 'https://img.example.com/a.png' }],
      question: 'which animal?',
      options: ['cat', 'dog'],
      thinking: true,
      return_reasoning: true,
    });
    expect(Object.keys(res.probabilities).sort()).toEqual(['cat', 'dog']);
    expect(Object.values(res.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(['cat', 'dog']).toContain(res.choice);
    expect(res.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(res.num_model_requests).toBeGreaterThan(1);
    expect(res.thinking).toBeTruthy();
  });

  it('uploads a batch file, creates, gets, lists, reads and cancels batches', async () => {
    // At this clock speed a batch would finish in about 90 ms, before a loaded machine gets to cancel it.
    await emu.admin('PUT', '/batches/settings', { validatingMs: 3_600_000 });
    const lines = [1, 2, 3].map((i) => ({
      custom_id: `r${i}`,
      body: { model: 'meta-llama/llama-3.1-8b-instruct', messages: [{ role: 'user', content: `hi ${i}` }] },
    }));
    const file = await client.uploadBatchInputFile({ content: toJsonl(lines), endpoint: '/v1/chat/completions' });
    expect(file.id).toEqual(expect.any(String));
    expect((await client.getFile(file.id)).id).toBe(file.id);
    expect((await client.getFileContent(file.id)).trim().split('\n')).toHaveLength(3);
    const batch = await client.createBatch({ input_file_id: file.id, endpoint: '/v1/chat/completions' });
    expect(batch.completion_window).toBe('48h');
    expect(batch.request_counts.total).toBe(3);
    const got = await client.getBatch(batch.id);
    expect(got.id).toBe(batch.id);
    const listed: string[] = [];
    for await (const b of client.iterateBatches({ limit: 1 })) listed.push(b.id);
    expect(listed).toContain(batch.id);
    const cancelled = await client.cancelBatch(batch.id);
    expect(['CANCELLING', 'CANCELLED']).toContain(cancelled.status);
  });

  it('checks a member budget', async () => {
    expect((await client.checkMemberBudget({ member_id: 'member-demo', cost: 1 })).enough).toBe(true);
    expect((await client.checkMemberBudget({ member_id: 'member-demo', cost: Number.MAX_SAFE_INTEGER })).enough).toBe(
      false,
    );
  });

  it('lists bills, with amounts as strings that parse to USD', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await client.listBills({
      cycleType: 'Day',
      startTime: Math.max(JAN_1_2026, now - 30 * 86_400),
      endTime: now + 86_400,
    });
    expect(Array.isArray(res.bills)).toBe(true);
    for (const bill of res.bills) {
      expect(typeof bill.amount).toBe('string');
      expect(parseTenThousandths(bill.amount)).toBeGreaterThanOrEqual(0);
    }
  });

  it('lists quotas with filters', async () => {
    const all = await client.listQuotas();
    expect(all.total).toBe(all.data.length);
    expect(all.data.length).toBeGreaterThan(0);
    const rpm = await client.listQuotas({ quotaType: 'RPM' });
    expect(rpm.data.every((q) => q.quotaType === 'RPM')).toBe(true);
  });
});
