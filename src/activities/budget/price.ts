// priceBudgetJob: prices a job's quantities with the worker's price table (src/config/prices.ts), for
// budget-gated jobs that give no `cost`. An activity because the table is the worker's configuration.
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../api/failures';
import type { JobQuantities } from '../../budget/quantities';
import type { PriceTable } from '../../config/prices';
import { MODEL_REGISTRY } from '../../platform/models';

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

interface Priced {
  amount: number;
  breakdown: string;
}

const noPrice = (what: string, hint: string) =>
  ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message: `cost: is required here: the price table has no ${what} (${hint}); give cost, or set it in PLATFORM_PRICES`,
  });

/** The price of a job's quantities, with how it was reached. Throws InvalidInput when the table has no price. */
export function priceQuantities(table: PriceTable, q: JobQuantities): Priced {
  switch (q.workflowType) {
    case 'mediaGeneration': {
      if (q.operation === 'async') return modelPrice(q.model);
      const m = table.mediaGeneration;
      const perSecond = q.operation === 'image-to-video' ? m.imageToVideoPerSecond : m.textToVideoPerSecond;
      const parts = [`${q.seconds} s × ${perSecond} (${q.operation})`];
      let amount = q.seconds * perSecond;
      if (q.sound) {
        amount += q.seconds * m.soundPerSecond;
        parts.push(`${q.seconds} s × ${m.soundPerSecond} (sound)`);
      }
      if (q.nsfwImages > 0) {
        amount += q.nsfwImages * m.nsfwDetectionPerImage;
        parts.push(`${q.nsfwImages} × ${m.nsfwDetectionPerImage} (NSFW detection)`);
      }
      return { amount, breakdown: parts.join(' + ') };
    }
    case 'evaluateDecision':
      return decisionPrice(table, q.questions, q.images);
    case 'batchJob': {
      const perRequest = table.batchJob.perRequest;
      if (perRequest === undefined) throw noPrice('batchJob.perRequest', 'token use varies too much for a default');
      if (q.requests === undefined) {
        throw noPrice('count of requests', 'the batch comes as a file, so its requests are not counted before it runs');
      }
      return { amount: q.requests * perRequest, breakdown: `${q.requests} requests × ${perRequest}` };
    }
    case 'renewInstance': {
      const perMonth = table.renewInstance.perMonth;
      if (perMonth === undefined) throw noPrice('renewInstance.perMonth', "it is the instance product's price");
      return { amount: q.months * perMonth, breakdown: `${q.months} months × ${perMonth}` };
    }
    case 'restartInstance':
      return { amount: table.restartInstance.perRestart, breakdown: `restart ${table.restartInstance.perRestart}` };
    case 'billingReport':
      return { amount: table.billingReport.perReport, breakdown: `report ${table.billingReport.perReport}` };
  }
}

/** A registry model's price per task; none (or a pass-through model) needs an explicit cost. */
function modelPrice(model: string): Priced {
  const perTask = MODEL_REGISTRY.resolve(model)?.pricePerTask;
  if (perTask === undefined) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      nonRetryable: true,
      message:
        `cost: is required here: the model registry has no price for model "${model}"; give cost, or set ` +
        `models.${model}.price.perTask in src/platform/model-registry.json`,
    });
  }
  return { amount: perTask, breakdown: `1 task × ${perTask} (${model})` };
}

function decisionPrice(table: PriceTable, questions: number, images: number): Priced {
  const { perQuestion, perImage } = table.evaluateDecision;
  const each = perQuestion + images * perImage;
  return {
    amount: questions * each,
    breakdown: `${questions} questions × (${perQuestion} + ${images} images × ${perImage})`,
  };
}

export function createPriceActivities(table: PriceTable) {
  return {
    // Not async work, but an activity: the table is the worker's configuration, not the workflow's.
    priceBudgetJob(input: PriceBudgetJobInput): Promise<PriceBudgetJobResult> {
      return Promise.resolve().then(() => {
        const job = input.job ? priceQuantities(table, input.job) : undefined;
        const gateCost = input.gate ? decisionPrice(table, 1, input.gate.images).amount : 0;
        return { cost: job?.amount, costBreakdown: job?.breakdown, gateCost };
      });
    },
  };
}
