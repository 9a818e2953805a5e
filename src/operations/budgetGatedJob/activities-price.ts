// The worker's price table (docs/configuration.md#price-table); its defaults are the emulator's list prices.
import { readFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType, MODEL_REGISTRY, NSFW_DETECTION_COST_PER_IMAGE } from '@platform-ops/client';
import type { JobQuantities } from './quantities';
import { ConfigError, parseConfig } from '../../platform-client/config';

const Price = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const PriceTable = z.strictObject({
  mediaGeneration: z
    .strictObject({
      imageToVideoPerSecond: Price.default(700),
      textToVideoPerSecond: Price.default(1_120),
      /** Per second of video generated with `sound: true`. */
      soundPerSecond: Price.default(140),
      /** Per image checked when extra.enable_nsfw_detection is on (spec: 0.0015 USD). */
      nsfwDetectionPerImage: Price.default(NSFW_DETECTION_COST_PER_IMAGE),
    })
    .prefault({}),
  evaluateDecision: z
    .strictObject({
      /** An estimate: the platform bills a decision's prompt tokens, unknown before the call. */
      perQuestion: Price.default(10),
      perImage: Price.default(1),
    })
    .prefault({}),
  /** Per request of the batch; no default (token use varies too much), so batch jobs give `cost`. */
  batchJob: z.strictObject({ perRequest: Price.optional() }).prefault({}),
  /** Per instance and month renewed; no default (it is the instance product's price). */
  renewInstance: z.strictObject({ perMonth: Price.optional() }).prefault({}),
  restartInstance: z.strictObject({ perRestart: Price.default(0) }).prefault({}),
  billingReport: z.strictObject({ perReport: Price.default(0) }).prefault({}),
});
export type PriceTable = z.output<typeof PriceTable>;

export const DEFAULT_PRICE_TABLE: PriceTable = PriceTable.parse({});

export function loadPriceTable(env: NodeJS.ProcessEnv = process.env): PriceTable {
  const inline = env.PLATFORM_PRICES?.trim();
  const file = env.PLATFORM_PRICES_FILE?.trim();
  if (inline && file) throw new ConfigError('Price table: set PLATFORM_PRICES or PLATFORM_PRICES_FILE, not both');
  if (!inline && !file) return DEFAULT_PRICE_TABLE;
  const source = inline ? 'PLATFORM_PRICES' : `PLATFORM_PRICES_FILE (${file})`;
  let json: unknown;
  try {
    json = JSON.parse(inline ?? readFileSync(file!, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Price table: ${source} is not readable JSON: ${(err as Error).message}`);
  }
  return parseConfig(PriceTable, json, `Price table: ${source}`);
}

export interface PriceBudgetJobInput {
  /** Absent when the input gives `cost`: only the gate is priced then. */
  job?: JobQuantities;
  /** A decision gate: one question about content holding this many images. */
  gate?: { images: number };
}

export interface PriceBudgetJobResult {
  cost?: number;
  costBreakdown?: string;
  gateCost: number;
}

const needsCost = (lack: string, fix: string) =>
  ApplicationFailure.nonRetryable(
    `cost: is required here: ${lack}; give cost, or set ${fix}`,
    FailureType.InvalidInput,
  );
const noTablePrice = (what: string, hint: string) =>
  needsCost(`the price table has no ${what} (${hint})`, 'it in PLATFORM_PRICES');

export function priceQuantities(table: PriceTable, q: JobQuantities): { amount: number; breakdown: string } {
  const priced = (amount: number, breakdown: string) => ({ amount, breakdown });
  switch (q.workflowType) {
    case 'mediaGeneration': {
      if (q.operation === 'async') {
        const perTask = MODEL_REGISTRY.resolve(q.model)?.pricePerTask;
        if (perTask === undefined) {
          throw needsCost(
            `the model registry has no price for model "${q.model}"`,
            `models.${q.model}.price.perTask in packages/client/src/model-registry.json`,
          );
        }
        return priced(perTask, `1 task × ${perTask} (${q.model})`);
      }
      const m = table.mediaGeneration;
      const perSecond = q.operation === 'image-to-video' ? m.imageToVideoPerSecond : m.textToVideoPerSecond;
      // [quantity, unit, price, what]
      const terms: [number, string, number, string][] = [[q.seconds, ' s', perSecond, q.operation]];
      if (q.sound) terms.push([q.seconds, ' s', m.soundPerSecond, 'sound']);
      if (q.nsfwImages > 0) terms.push([q.nsfwImages, '', m.nsfwDetectionPerImage, 'NSFW detection']);
      return priced(
        terms.reduce((sum, [n, , price]) => sum + n * price, 0),
        terms.map(([n, unit, price, what]) => `${n}${unit} × ${price} (${what})`).join(' + '),
      );
    }
    case 'evaluateDecision': {
      const { perQuestion, perImage } = table.evaluateDecision;
      return priced(
        q.questions * (perQuestion + q.images * perImage),
        `${q.questions} questions × (${perQuestion} + ${q.images} images × ${perImage})`,
      );
    }
    case 'batchJob': {
      const perRequest = table.batchJob.perRequest;
      if (perRequest === undefined)
        throw noTablePrice('batchJob.perRequest', 'token use varies too much for a default');
      if (q.requests === undefined) {
        throw noTablePrice(
          'count of requests',
          'the batch comes as a file, so its requests are not counted before it runs',
        );
      }
      return priced(q.requests * perRequest, `${q.requests} requests × ${perRequest}`);
    }
    case 'renewInstance': {
      const perMonth = table.renewInstance.perMonth;
      if (perMonth === undefined) throw noTablePrice('renewInstance.perMonth', "it is the instance product's price");
      return priced(q.months * perMonth, `${q.months} months × ${perMonth}`);
    }
    case 'restartInstance':
      return priced(table.restartInstance.perRestart, `restart ${table.restartInstance.perRestart}`);
    case 'billingReport':
      return priced(table.billingReport.perReport, `report ${table.billingReport.perReport}`);
  }
}

export function createPriceActivities(table: PriceTable) {
  return {
    // Not async work, but an activity: the table is the worker's configuration, not the workflow's.
    priceBudgetJob(input: PriceBudgetJobInput): Promise<PriceBudgetJobResult> {
      return Promise.resolve().then(() => {
        const job = input.job ? priceQuantities(table, input.job) : undefined;
        const gate = input.gate && { workflowType: 'evaluateDecision' as const, questions: 1, ...input.gate };
        const gateCost = gate ? priceQuantities(table, gate).amount : 0;
        return { cost: job?.amount, costBreakdown: job?.breakdown, gateCost };
      });
    },
  };
}
