// What emulated work costs, in 1/10000 USD, and the price fields bills show for each product. The
// figures are plausible list prices, not the live platform's: they only need to be stable and visible.
import { DECISION_MODEL, NSFW_DETECTION_COST_PER_IMAGE } from '@platform-ops/client';
import { batchPrice } from './batches';
import { PRODUCTS } from './catalog-products';

export const VIDEO_PRODUCTS = {
  submitImageToVideo: { productId: 'vendor-v3.0-std-i2v', productName: 'vendor-v3.0-std-i2v', perSecond: 700 },
  submitTextToVideo: { productId: 'vendor-v3.0-pro-t2v', productName: 'vendor-v3.0-pro-t2v', perSecond: 1_120 },
} as const;
export type VideoOperation = keyof typeof VIDEO_PRODUCTS;

/** Audio generated with the video (`sound: true`), per second of video. */
const SOUND_PER_SECOND = 140;

export const GEN_API_CATEGORY = 'gen_api';
export const LLM_CATEGORY = 'llm';

/** Decision model: input tokens only are billed (spec), per 1M tokens. */
const DECISION_PRICE_PER_M_INPUT = 2_000;

export interface VideoCharge {
  amount: number;
  usage: Record<`billNum${number}`, string>;
}

/**
 * A video task's price: seconds × per-second price, audio on top when `sound`, and the NSFW surcharge
 * per checked image when detection is on. A video task yields no `images`, so each generated video
 * counts as one checked image (its key frame): otherwise the surcharge could never show in a bill.
 */
export function videoCharge(operation: VideoOperation, seconds: number, sound: boolean, nsfw: boolean): VideoCharge {
  const base = VIDEO_PRODUCTS[operation].perSecond * seconds;
  const audio = sound ? SOUND_PER_SECOND * seconds : 0;
  const nsfwImages = nsfw ? 1 : 0;
  return {
    amount: base + audio + nsfwImages * NSFW_DETECTION_COST_PER_IMAGE,
    // billNum0 seconds of video, 1 videos, 2 seconds of audio, 3 NSFW-checked images.
    usage: {
      billNum0: String(seconds),
      billNum1: '1',
      billNum2: String(sound ? seconds : 0),
      billNum3: String(nsfwImages),
    },
  };
}

/** A registry model's task without a price of its own, in 1/10000 USD. */
const DEFAULT_MODEL_TASK_PRICE = 100;

/** A registry model's task: its registry price (or the default) per task. billNum0 counts tasks. */
export function modelTaskCharge(perTask: number | undefined): VideoCharge {
  return { amount: perTask ?? DEFAULT_MODEL_TASK_PRICE, usage: { billNum0: '1' } };
}

export function decisionAmount(promptTokens: number): number {
  // Rounded up: a call is never free, so it always shows in the bill.
  return Math.max(1, Math.ceil((promptTokens * DECISION_PRICE_PER_M_INPUT) / 1_000_000));
}

/** A serverless GPU product of the catalog with its postpaid price per card-hour; undefined for any other product. */
export function serverlessProduct(id: string): { perCardHour: number } | undefined {
  const p = PRODUCTS.find((product) => product.id === id);
  if (!p || p.category !== 'serverless' || p.type !== 'gpu') return undefined;
  const postpaid = (p.pricing as { postpaid?: { final_price?: number } } | undefined)?.postpaid;
  return { perCardHour: postpaid?.final_price ?? 0 };
}

interface BillPrices {
  /** basePrice0..5 (discountPrice0..5 are the same: the emulator has no discounts). */
  prices: number[];
  pricePrecision: number;
  /** 1 pay-as-you-go, 2 subscription. */
  billingMethod: 1 | 2;
}

const pad6 = (values: number[]): number[] => [...values, 0, 0, 0, 0, 0, 0].slice(0, 6);

/** The price fields of a product's bill lines, in the order of its usage fields. */
export function billPrices(productId: string): BillPrices {
  for (const p of Object.values(VIDEO_PRODUCTS)) {
    if (p.productId === productId) {
      return {
        prices: pad6([p.perSecond, 0, SOUND_PER_SECOND, NSFW_DETECTION_COST_PER_IMAGE]),
        pricePrecision: 1,
        billingMethod: 1,
      };
    }
  }
  if (productId === DECISION_MODEL) {
    return { prices: pad6([DECISION_PRICE_PER_M_INPUT]), pricePrecision: 1, billingMethod: 1 };
  }
  if (productId.startsWith('llm-batch-')) {
    // Batch lines: the batch price per 1M input and output tokens (see ./batches/pricing.ts).
    const price = batchPrice(productId.slice('llm-batch-'.length));
    return { prices: pad6([price.input, price.output]), pricePrecision: 1, billingMethod: 1 };
  }
  const serverless = serverlessProduct(productId);
  if (serverless) {
    // Serverless lines: billNum0 worker-seconds (no price of its own), billNum1 GPU-seconds at the price per GPU-hour.
    return { prices: pad6([0, serverless.perCardHour]), pricePrecision: 1, billingMethod: 1 };
  }
  return { prices: pad6([]), pricePrecision: 1, billingMethod: 1 };
}
