// Budgets, charges, bills and quotas of the emulator over real HTTP.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, read by the assertions */
import { billRangeMessage } from '@platform-ops/client';
import { I2V, T2V, TASK_RESULT, pngDataUrl, emulatorForFile } from './support';

const BILLS = '/openapi/v1/billing/apikey/bill/list';
const BUDGET = '/openapi/v1/user/team/check-budget-by-cost';
const JAN_1_2026 = 1_767_225_600;
const DAY = 86_400;

const emu = emulatorForFile();

const emulatedNowS = async () => Math.floor((await emu.admin('GET', '/clock')).now / 1000);

describe('budgets', () => {
  it('member-demo has a modest budget; check-budget compares remaining >= cost', async () => {
    const { members } = await emu.admin('GET', '/members');
    const demo = members.find((m: { id: string }) => m.id === 'member-demo');
    expect(demo.remaining).toBe(500_000);
    expect((await emu.call('POST', BUDGET, { json: { member_id: 'member-demo', cost: 500_000 } })).json).toEqual({
      enough: true,
    });
    expect((await emu.call('POST', BUDGET, { json: { member_id: 'member-demo', cost: 500_001 } })).json).toEqual({
      enough: false,
    });
    expect((await emu.call('POST', BUDGET, { json: { member_id: 'member-unlimited', cost: 9e15 } })).json).toEqual({
      enough: true,
    });
  });

  it('answers 404 MEMBER_NOT_FOUND for an unknown member and 400 for a bad cost', async () => {
    const unknown = await emu.call('POST', BUDGET, { json: { member_id: 'member-x', cost: 1 } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.reason).toBe('MEMBER_NOT_FOUND');
    const bad = await emu.call('POST', BUDGET, { json: { member_id: 'member-demo', cost: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('cost: must be at least 0');
  });

  it('tops up through the admin API, and refuses paid work the budget does not cover', async () => {
    await emu.admin('PUT', '/members/member-demo/budget', { remaining: 100 });
    const refused = await emu.call('POST', I2V, { json: { image: pngDataUrl(640, 640), prompt: 'x' } });
    expect(refused.status).toBe(400);
    expect(refused.json.reason).toBe('BILLING_BALANCE_NOT_ENOUGH');
    await emu.admin('PUT', '/members/member-demo/budget', { remaining: 1_000_000 });
    expect((await emu.call('POST', I2V, { json: { image: pngDataUrl(640, 640), prompt: 'x' } })).status).toBe(200);
    const badTopUp = await emu.call('PUT', '/_emulator/members/member-demo/budget', {
      json: { remaining: 'lots' },
      key: null,
    });
    expect(badTopUp.status).toBe(400);
    expect(badTopUp.json.message).toBe('remaining: must be a number');
  });
});

describe('charges and bills', () => {
  it('charges a finished task once, even if nobody polls it, and lists it as a bill', async () => {
    await emu.freeze();
    const res = await emu.call('POST', T2V, { json: { prompt: 'bill me [emulator:duration=1000]', duration: 4 } });
    const taskId = res.json.task_id as string;
    await emu.advance(1_000); // settles the task without any poll
    const { members } = await emu.admin('GET', '/members');
    expect(members.find((m: { id: string }) => m.id === 'member-demo').remaining).toBe(500_000 - 4 * 1_120);
    // Polling afterwards does not charge again.
    await emu.call('GET', TASK_RESULT, { query: { task_id: taskId } });
    expect((await emu.admin('GET', '/charges')).charges).toHaveLength(1);

    const now = await emulatedNowS();
    const { json, status } = await emu.call('GET', BILLS, {
      query: { cycleType: 'Hour', startTime: now - 3_600, endTime: now + 60, productName: 'PRO-T2V' },
    });
    expect(status).toBe(200);
    expect(json.bills).toHaveLength(1);
    const bill = json.bills[0];
    expect(bill).toMatchObject({
      userId: 'user-demo',
      billingMethod: 1,
      productName: 'vendor-v3.0-pro-t2v',
      productId: 'vendor-v3.0-pro-t2v',
      category: 'gen_api',
      ownerID: 'key-demo-1',
      apikeyMask: 'emu-****0000',
      amount: String(4 * 1_120),
      voucherAmount: '0',
      payAmount: String(4 * 1_120),
      payAmountDisplay: 0.448,
      pricePrecision: 1,
      billNum0: '4',
      basePrice0: '1120',
    });
    // Hour periods: top of the hour to minute 59 second 59.
    expect(Number(bill.startTime) % 3_600).toBe(0);
    expect(Number(bill.endTime) - Number(bill.startTime)).toBe(3_599);
    for (let i = 0; i < 6; i++) {
      for (const f of ['billNum', 'basePrice', 'discountPrice']) expect(typeof bill[`${f}${i}`]).toBe('string');
    }
    // Filters: another category, another product name.
    const other = await emu.call('GET', BILLS, {
      query: { cycleType: 'Day', startTime: now - DAY, endTime: now + 60, category: 'llm' },
    });
    expect(other.json.bills).toEqual([]);
  });

  it('has historical bills for January to March 2026, aggregated per period', async () => {
    const month = await emu.call('GET', BILLS, {
      query: { cycleType: 'Month', startTime: JAN_1_2026, endTime: JAN_1_2026 + 30 * DAY },
    });
    expect(month.status).toBe(200);
    // One line per product in January: i2v, t2v, decision.
    expect(month.json.bills).toHaveLength(3);
    expect(month.json.bills.every((b: { startTime: string }) => b.startTime === String(JAN_1_2026))).toBe(true);
    const daily = await emu.call('GET', BILLS, {
      query: { cycleType: 'Day', startTime: JAN_1_2026, endTime: JAN_1_2026 + 7 * DAY - 1, category: 'llm' },
    });
    expect(daily.json.bills).toHaveLength(7);
    const week = await emu.call('GET', BILLS, {
      query: { cycleType: 'Week', startTime: JAN_1_2026, endTime: JAN_1_2026 + 14 * DAY },
    });
    // 2026-01-01 is a Thursday: weeks start on Monday 2025-12-29.
    expect(Number(week.json.bills[0].startTime)).toBe(JAN_1_2026 - 3 * DAY);
  });

  it('words the bill-range error exactly as the spec does', async () => {
    for (const [cycleType, days] of [
      ['Hour', 7],
      ['Day', 31],
      ['Week', 31],
      ['Month', 31],
    ] as const) {
      const res = await emu.call('GET', BILLS, {
        query: { cycleType, startTime: JAN_1_2026, endTime: JAN_1_2026 + days * DAY + 1 },
      });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(billRangeMessage(cycleType));
      expect(res.json.message).toBe(`time range must not exceed ${days} days for cycleType "${cycleType}"`);
    }
    const early = await emu.call('GET', BILLS, {
      query: { cycleType: 'Day', startTime: JAN_1_2026 - 1, endTime: JAN_1_2026 + 1 },
    });
    expect(early.json.message).toBe('startTime: must be at or after 2026-01-01 00:00:00 UTC (1767225600)');
    const notNumber = await emu.call('GET', BILLS, {
      query: { cycleType: 'Day', startTime: 'yesterday', endTime: JAN_1_2026 },
    });
    expect(notNumber.status).toBe(400);
    expect(notNumber.json.message).toContain('startTime: must be a number');
  });
});

describe('quotas', () => {
  it('lists configured quotas with filters', async () => {
    const all = await emu.call('GET', '/openapi/v1/user/quota/list');
    expect(all.json.total).toBe(all.json.data.length);
    expect(all.json.data.length).toBeGreaterThanOrEqual(5);
    expect(all.json.data[0].quotaItems.map((i: { tier: string }) => i.tier)).toEqual(['T1', 'T2', 'T3', 'T4', 'T5']);
    const ipm = await emu.call('GET', '/openapi/v1/user/quota/list', { query: { quotaType: 'IPM', modal: 'image' } });
    expect(ipm.json.data.map((q: { quotaObject: string }) => q.quotaObject)).toEqual(['qwen-image']);
    const fuzzy = await emu.call('GET', '/openapi/v1/user/quota/list', { query: { quotaObject: 'DEEPSEEK' } });
    expect(fuzzy.json.data.map((q: { quotaType: string }) => q.quotaType).sort()).toEqual(['RPM', 'TPM']);
  });

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After over a model RPM, in emulated time', async () => {
    await emu.admin('PUT', '/clock', { speed: 1 });
    await emu.admin('PUT', '/quotas', { quotaObject: 'vendor-v3.0-pro-t2v', quotaType: 'RPM', currentQuota: 2 });
    const submit = () => emu.call('POST', T2V, { json: { prompt: 'x' } });
    expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(200);
    const limited = await submit();
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ code: 429, reason: 'RATE_LIMIT_EXCEEDED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(58);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Other models are not affected; at speed 60 the same wait is a second of real time.
    expect((await emu.call('POST', I2V, { json: { image: pngDataUrl(640, 640), prompt: 'x' } })).status).toBe(200);
    await emu.admin('PUT', '/clock', { speed: 60 });
    expect(Number((await submit()).headers.get('retry-after'))).toBe(1);
    await emu.advance(60_000);
    expect((await submit()).status).toBe(200);
    const counters = await emu.admin('GET', '/counters');
    expect(counters.rateLimited).toBe(2);
    expect(counters.submissions.byOperation.submitTextToVideo).toBe(3);
  });

  it('refuses a bad quota update naming the field', async () => {
    const res = await emu.call('PUT', '/_emulator/quotas', {
      json: { quotaObject: 'vendor-v3.0-pro-t2v', quotaType: 'RPM', currentQuota: -3 },
      key: null,
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('currentQuota: must be at least 0');
  });
});
