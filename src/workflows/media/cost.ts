// The cost facts the spec gives for a generation. The video price itself is not published; the
// platform's bill list has the charge.
import type { MediaGenerationResult, TaskOutputRef } from './contract';
import { usdText } from '../../platform/money';
import { NSFW_DETECTION_COST_PER_IMAGE } from '../../platform/schemas/media';

export function costFacts(outputs: TaskOutputRef[], nsfwDetection: boolean): MediaGenerationResult['cost'] {
  const images = outputs.filter((o) => o.kind === 'image').length;
  const nsfwSurcharge = nsfwDetection ? images * NSFW_DETECTION_COST_PER_IMAGE : 0;
  return {
    nsfwDetection,
    images,
    nsfwSurcharge,
    nsfwSurchargeUsd: usdText(nsfwSurcharge),
    note:
      'NSFW detection adds 0.0015 USD per generated image when enabled. The generation price is not published ' +
      'in the spec: see the bill list for what was charged.',
  };
}
