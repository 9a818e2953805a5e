// billingReport end to end, on an emulator of this file's own whose charges are known exactly: a
// 40-day Hour range splits into 6 windows, and the totals match the charges to the 1/10000 USD.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FailureType, WorkflowType } from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { billingReport } from '../../src/operations/billingReport/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { emulatorPlatform, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

const DAY = 86_400;
const start = Date.parse('2026-02-01T00:00:00Z') / 1000;
const end = start + 40 * DAY - 1;

const products = [
  { productId: 'vendor-v3.0-pro-t2v', productName: 'Pro text-to-video', category: 'gen_api' },
  { productId: 'gpu-a100-80g', productName: 'A100 80GB', category: 'instance' },
];
const keys = [
  { id: 'key-demo-1', name: 'Demo' },
  { id: 'key-ci', name: 'CI' },
];
// Every 13 hours across the range, a charge of a product on a key; plus one exactly on a window
// boundary (start + 7 days) and two outside the range, which must not count.
const inRange = Array.from({ length: Math.floor((40 * DAY) / (13 * 3600)) }, (_, i) => ({
  at: start + i * 13 * 3600 + 60,
  apiKeyId: keys[i % 2].id,
  ...products[Math.floor(i / 2) % 2],
  amount: 100 + i * 7,
}));
const boundary = { at: start + 7 * DAY, apiKeyId: 'key-ci', ...products[0], amount: 5_000 };
const outside = [
  { at: start - 3600, apiKeyId: 'key-demo-1', ...products[0], amount: 99_999 },
  { at: end + 3600, apiKeyId: 'key-demo-1', ...products[1], amount: 99_999 },
];
const counted = [...inRange, boundary];
const sum = (charges: Array<{ amount: number }>) => charges.reduce((a, c) => a + c.amount, 0);

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
  await emulator.admin('POST', '/fixtures', {
    apiKeys: [
      { key: DEV_API_KEY, id: 'key-demo-1', name: 'Demo', userId: 'user-demo', memberId: 'member-demo' },
      { key: 'emu-ci-key-0000000000', id: 'key-ci', name: 'CI', userId: 'user-demo', memberId: 'member-demo' },
    ],
    historicalCharges: [...counted, ...outside],
  });
});
afterAll(() => emulator.close());

describe('billingReport', () => {
  it('splits 40 days of Hour bills into 6 windows, and its totals match the charges', () =>
    withWorker(
      'billing',
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start<typeof billingReport>(WorkflowType.billingReport, {
          taskQueue,
          workflowId: uniqueId('billing'),
          args: [{ cycleType: 'Hour', startTime: start, endTime: end, includeQuotas: true }],
        });
        const result = await handle.result();
        await recordHistory(handle, 'billingReport-40-days');
        expect(result.windows).toHaveLength(6);
        expect(result.total.amount).toBe(sum(counted));
        expect(result.total.usd).toBe((sum(counted) / 10_000).toFixed(4));
        const byProduct = Object.fromEntries(result.byProduct.map((t) => [t.key, t.amount]));
        for (const p of products) {
          expect(byProduct[p.productName]).toBe(sum(counted.filter((c) => c.productId === p.productId)));
        }
        const byKey = Object.fromEntries(result.byApiKey.map((t) => [t.key, t.amount]));
        expect(byKey.Demo).toBe(sum(counted.filter((c) => c.apiKeyId === 'key-demo-1')));
        expect(byKey.CI).toBe(sum(counted.filter((c) => c.apiKeyId === 'key-ci')));
        const byCategory = Object.fromEntries(result.byCategory.map((t) => [t.key, t.amount]));
        expect(byCategory.gen_api + byCategory.instance).toBe(sum(counted));

        const csv = readFileSync(fileURLToPath(result.csv.uri));
        expect(createHash('sha256').update(csv).digest('hex')).toBe(result.csv.sha256);
        expect(csv.toString().trim().split('\n')).toHaveLength(result.bills + 1);
        expect(result.csv.rows).toBe(result.bills);
        expect(result.quotas?.length).toBeGreaterThan(0);
      },
      { platform: emulatorPlatform(emulator.url) },
    ));

  it('fails fast on a start before 2026, naming the field', () =>
    withWorker(
      'billing-invalid',
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start<typeof billingReport>(WorkflowType.billingReport, {
          taskQueue,
          workflowId: uniqueId('billing-invalid'),
          args: [{ cycleType: 'Day', startTime: start - 60 * DAY, endTime: start }],
        });
        const failure = await failureOf(handle.result());
        expect(failure.type).toBe(FailureType.InvalidInput);
        expect(failure.message).toContain('startTime: must be at or after 2026-01-01');
        await recordHistory(handle, 'billingReport-invalid');
      },
      { platform: emulatorPlatform(emulator.url) },
    ));
});
