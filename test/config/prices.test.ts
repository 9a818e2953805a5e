// The price table budget-gated jobs are priced from, and what it makes of each job's quantities.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { BudgetJob } from '@platform-ops/client';
import { priceQuantities } from '../../src/operations/budgetGatedJob/activities';
import { jobQuantities } from '../../src/operations/budgetGatedJob/quantities';
import { DEFAULT_PRICE_TABLE, loadPriceTable } from '../../src/operations/budgetGatedJob/activities-price';
import { videoCharge } from '@platform-ops/emulator';

const price = (job: unknown, table = DEFAULT_PRICE_TABLE) =>
  priceQuantities(table, jobQuantities(BudgetJob.parse(job)));

describe('price table', () => {
  it("prices a video as the emulator charges it (its defaults are the emulator's list prices)", () => {
    const t2v = { operation: 'text-to-video', request: { prompt: 'p', duration: 7, sound: true } };
    expect(price({ workflowType: 'mediaGeneration', input: t2v })).toEqual({
      amount: videoCharge('submitTextToVideo', 7, true, false).amount,
      breakdown: '7 s × 1120 (text-to-video) + 7 s × 140 (sound)',
    });
    const i2v = {
      operation: 'image-to-video',
      request: {
        image: 'https://example.com/a.png',
        prompt: 'p',
        multi_prompt: [
          { prompt: 'a', duration: 3 },
          { prompt: 'b', duration: 4 },
        ],
        extra: { enable_nsfw_detection: true },
      },
    };
    expect(price({ workflowType: 'mediaGeneration', input: i2v }).amount).toBe(
      videoCharge('submitImageToVideo', 7, false, true).amount,
    );
    // No duration: the spec's default of 5 seconds.
    expect(
      price({ workflowType: 'mediaGeneration', input: { operation: 'text-to-video', request: { prompt: 'p' } } })
        .amount,
    ).toBe(5 * 1_120);
  });

  it('prices decisions per question and image, reports and restarts at nothing', () => {
    const decision = {
      state: ['look', { image: 'https://example.com/a.png' }, { image: 'https://example.com/b.png' }],
      questions: [
        { kind: 'yes_no', question: 'a?' },
        { kind: 'yes_no', question: 'b?' },
      ],
    };
    expect(price({ workflowType: 'evaluateDecision', input: decision }).amount).toBe(2 * (10 + 2 * 1));
    expect(
      price({
        workflowType: 'billingReport',
        input: { cycleType: 'Day', startTime: 1_767_225_600, endTime: 1_767_312_000 },
      }).amount,
    ).toBe(0);
    expect(price({ workflowType: 'restartInstance', input: { instanceId: 'i' } }).amount).toBe(0);
  });

  it('asks for a cost where the table has no price, naming the field and the setting', () => {
    const ask = (job: unknown): ApplicationFailure => {
      try {
        price(job);
      } catch (err) {
        return err as ApplicationFailure;
      }
      throw new Error('priced');
    };
    const renew = ask({ workflowType: 'renewInstance', input: { instanceId: 'i', months: 2 } });
    expect(renew).toBeInstanceOf(ApplicationFailure);
    expect(renew.type).toBe('InvalidInput');
    expect(renew.nonRetryable).toBe(true);
    expect(renew.message).toMatch(/^cost: is required here: the price table has no renewInstance\.perMonth/);
    expect(renew.message).toContain('PLATFORM_PRICES');

    const table = loadPriceTable({
      PLATFORM_PRICES: '{"batchJob": {"perRequest": 3}, "renewInstance": {"perMonth": 90000}}',
    });
    expect(price({ workflowType: 'renewInstance', input: { instanceId: 'i', months: 2 } }, table).amount).toBe(180_000);
    const requests = [1, 2].map((i) => ({
      custom_id: `r${i}`,
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    }));
    expect(price({ workflowType: 'batchJob', input: { endpoint: '/v1/chat/completions', requests } }, table)).toEqual({
      amount: 6,
      breakdown: '2 requests × 3',
    });
    // A batch given as a file has no count of requests before it runs.
    expect(() =>
      price({ workflowType: 'batchJob', input: { endpoint: '/v1/completions', inputFileId: 'f' } }, table),
    ).toThrow(/count of requests/);
  });

  it('loads a table from a file, keeping defaults, and names every bad field', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prices-'));
    const file = path.join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ mediaGeneration: { textToVideoPerSecond: 2_000 } }));
    const table = loadPriceTable({ PLATFORM_PRICES_FILE: file });
    expect(table.mediaGeneration.textToVideoPerSecond).toBe(2_000);
    expect(table.mediaGeneration.imageToVideoPerSecond).toBe(700);
    expect(loadPriceTable({})).toEqual(DEFAULT_PRICE_TABLE);

    expect(() =>
      loadPriceTable({ PLATFORM_PRICES: '{"mediaGeneration": {"soundPerSecond": -1}, "videos": {}}' }),
    ).toThrow(
      'Price table: PLATFORM_PRICES: mediaGeneration.soundPerSecond: must be at least 0; videos: is not a known field',
    );
    expect(() => loadPriceTable({ PLATFORM_PRICES: '{nope' })).toThrow(/PLATFORM_PRICES is not readable JSON/);
    expect(() => loadPriceTable({ PLATFORM_PRICES: '{}', PLATFORM_PRICES_FILE: file })).toThrow(/not both/);
  });
});
