// The price table budget-gated jobs are priced from when they give no `cost`: 1/10000 USD per unit of
// each job. The defaults are the emulator's list prices (the spec publishes none but the NSFW
// surcharge); against the live platform, set PLATFORM_PRICES (JSON) or PLATFORM_PRICES_FILE to yours.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, parseConfig } from '../platform-client/config';
import { NSFW_DETECTION_COST_PER_IMAGE } from '../platform/schemas/media';

const Price = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const PriceTable = z.strictObject({
  mediaGeneration: z
    .strictObject({
      /** Per second of video. */
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

/** The table with every default: the emulator's prices. */
export const DEFAULT_PRICE_TABLE: PriceTable = PriceTable.parse({});

/**
 * PLATFORM_PRICES (a JSON object) or PLATFORM_PRICES_FILE (a JSON file); absent sections and fields
 * keep their defaults. A bad table stops the worker with every bad field named.
 */
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
