// The built-in fixtures: the demo members, keys, instances, quotas and settings, and three months of
// historical charges so bill reports have data. Separate from fixtures.ts, which holds their shape and
// how loaded sections replace them.
import type { EndpointSettings } from './fixtures';
import { DECISION_MODEL } from '@platform-ops/client';
import { DEFAULT_TASK_SETTINGS } from './task-settings';
import { GEN_API_CATEGORY, LLM_CATEGORY, VIDEO_PRODUCTS, decisionAmount, videoCharge } from './pricing';
import { hash32 } from './hash';
import {
  DEMO_MEMBER_ID,
  DEMO_USER_ID,
  QUOTA_TIERS,
  type ApiKeyFixture,
  type Fixtures,
  type HistoricalCharge,
} from './fixtures';

/** 50 USD: enough for a day of tests, small enough that a runaway loop runs out. */
const DEMO_MEMBER_BUDGET = 500_000;

const tiers = (...quotas: number[]) => quotas.map((quota, i) => ({ tier: QUOTA_TIERS[i], quota }));

/** Env keys map to member-demo; the first is `key-demo-1`, the key whose bills the history shows. */
function envApiKeys(keys: readonly string[]): ApiKeyFixture[] {
  return keys.map((key, i) => ({
    key,
    id: `key-demo-${i + 1}`,
    name: i === 0 ? 'Emulator dev key' : `Emulator key ${i + 1}`,
    userId: DEMO_USER_ID,
    memberId: DEMO_MEMBER_ID,
    disabled: false,
  }));
}

const DAY_S = 86_400;
/** 2026-01-01T00:00:00Z. */
const HISTORY_FROM = 1_767_225_600;
/** 90 days: January to March 2026. */
const HISTORY_DAYS = 90;

/**
 * January to March 2026: each day one image-to-video, one text-to-video and one decision charge on
 * key-demo-1, at fixed hours, with amounts fixed by the date (so reports are repeatable).
 */
function defaultHistory(apiKeyId = 'key-demo-1'): HistoricalCharge[] {
  const out: HistoricalCharge[] = [];
  for (let d = 0; d < HISTORY_DAYS; d++) {
    const day = HISTORY_FROM + d * DAY_S;
    const seconds = 3 + (hash32(`history-${d}`) % 13);
    for (const [op, hour] of [
      ['submitImageToVideo', 9],
      ['submitTextToVideo', 14],
    ] as const) {
      const c = videoCharge(op, seconds, hour === 14, false);
      const p = VIDEO_PRODUCTS[op];
      out.push({
        at: day + hour * 3_600,
        apiKeyId,
        productId: p.productId,
        productName: p.productName,
        category: GEN_API_CATEGORY,
        amount: c.amount,
        usage: c.usage,
      });
    }
    const tokens = 500 + (hash32(`history-tokens-${d}`) % 5_000);
    out.push({
      at: day + 20 * 3_600,
      apiKeyId,
      productId: DECISION_MODEL,
      productName: DECISION_MODEL,
      category: LLM_CATEGORY,
      amount: decisionAmount(tokens),
      usage: { billNum0: String(tokens), billNum1: '0' },
    });
  }
  return out;
}

export function defaultFixtures(apiKeys: readonly string[]): Fixtures {
  return {
    members: [
      { id: DEMO_MEMBER_ID, name: 'Demo member', remaining: DEMO_MEMBER_BUDGET },
      { id: 'member-unlimited', name: 'Member without a limit', remaining: null },
      { id: 'member-broke', name: 'Member with an exhausted budget', remaining: 0 },
    ],
    apiKeys: envApiKeys(apiKeys),
    instances: [
      {
        id: 'inst-demo-1',
        name: 'demo training box',
        status: 'running',
        productId: 'gpu-rtx4090-24g',
        productName: 'RTX 4090 24GB',
        gpuNum: 1,
        billingMode: 'subscription',
        expiresInDays: 20,
        statusError: null,
      },
      {
        id: 'inst-demo-2',
        name: 'demo inference box',
        status: 'running',
        productId: 'gpu-a100-80g',
        productName: 'A100 80GB',
        gpuNum: 2,
        billingMode: 'subscription',
        expiresInDays: 45,
        statusError: null,
      },
      {
        id: 'inst-payg-1',
        name: 'pay-as-you-go notebook',
        status: 'running',
        productId: 'gpu-l40s-48g',
        productName: 'L40S 48GB',
        gpuNum: 1,
        billingMode: 'payAsYouGo',
        endTime: -1,
        statusError: null,
      },
      {
        id: 'inst-exited-1',
        name: 'stopped box',
        status: 'exited',
        productId: 'gpu-rtx4090-24g',
        productName: 'RTX 4090 24GB',
        gpuNum: 1,
        billingMode: 'subscription',
        expiresInDays: 10,
        statusError: null,
      },
      {
        id: 'inst-removed-1',
        name: 'removed box',
        status: 'removed',
        productId: 'gpu-h100-80g',
        productName: 'H100 80GB',
        gpuNum: 8,
        billingMode: 'subscription',
        expiresInDays: -5,
        statusError: null,
      },
      {
        id: 'inst-failed-1',
        name: 'box whose image did not pull',
        status: 'exited',
        productId: 'gpu-rtx3090-24g',
        productName: 'RTX 3090 24GB',
        gpuNum: 1,
        billingMode: 'payAsYouGo',
        endTime: -1,
        statusError: { state: 'pullFailed', message: 'image pull failed: manifest unknown' },
      },
    ],
    quotas: [
      // Video models (notes: 2 to 20 RPM by tier). The account sits at T5 so ordinary tests never meet
      // the limit; tests lower currentQuota through PUT /_emulator/quotas to see a 429.
      ...[VIDEO_PRODUCTS.submitImageToVideo, VIDEO_PRODUCTS.submitTextToVideo].map((product) => ({
        modal: 'video',
        quotaObject: product.productId,
        quotaType: 'RPM',
        productType: 'Public Endpoint',
        currentQuota: 60,
        defaultQuota: 2,
        adjustable: true,
        quotaItems: tiers(2, 5, 10, 20, 60),
      })),
      {
        modal: 'image',
        quotaObject: 'qwen-image',
        quotaType: 'IPM',
        productType: 'Public Endpoint',
        currentQuota: 20,
        defaultQuota: 10,
        adjustable: true,
        quotaItems: tiers(10, 12, 15, 18, 20),
      },
      {
        modal: 'llm',
        quotaObject: 'deepseek/deepseek-v3',
        quotaType: 'RPM',
        productType: 'Public Endpoint',
        currentQuota: 1_000,
        defaultQuota: 30,
        adjustable: true,
        quotaItems: tiers(30, 100, 500, 1_000, 6_000),
      },
      {
        modal: 'llm',
        quotaObject: 'deepseek/deepseek-v3',
        quotaType: 'TPM',
        productType: 'Public Endpoint',
        currentQuota: 1_000_000,
        defaultQuota: 50_000,
        adjustable: true,
        quotaItems: tiers(50_000, 200_000, 500_000, 1_000_000, 5_000_000),
      },
      {
        modal: 'llm',
        quotaObject: DECISION_MODEL,
        quotaType: 'RPM',
        productType: 'Public Endpoint',
        currentQuota: 600,
        defaultQuota: 30,
        adjustable: true,
        quotaItems: tiers(30, 100, 300, 600, 1_200),
      },
    ],
    rateLimits: {
      submitImageToVideo: [{ quotaObject: VIDEO_PRODUCTS.submitImageToVideo.productId, quotaType: 'RPM' }],
      submitTextToVideo: [{ quotaObject: VIDEO_PRODUCTS.submitTextToVideo.productId, quotaType: 'RPM' }],
      decisionEvaluation: [{ quotaObject: DECISION_MODEL, quotaType: 'RPM' }],
    },
    tasks: DEFAULT_TASK_SETTINGS,
    instanceSettings: { toRestartMs: 1_000, restartingMs: 5_000, lifecycleStepMs: 2_000 },
    endpointSettings: ENDPOINT_SETTINGS,
    decision: { baseLatencyMs: 60, msPerThinkToken: 2 },
    historicalCharges: defaultHistory(),
  };
}

const ENDPOINT_SETTINGS: EndpointSettings = {
  pendingMs: 0,
  pullMs: 2_000,
  startMs: 2_000,
  deleteMs: 2_000,
  maxEndpoints: 50,
  maxWorkers: 200,
  limits: {
    minRootfsSize: 100,
    maxRootfsSize: 100,
    minLocalVolumeSize: 1,
    maxLocalVolumeSize: 1_000,
    minWorkerNum: 0,
    maxWorkerNum: 20,
    minFreeTimeout: 0,
    maxFreeTimeout: 3_600,
    minConcurrencyNum: 1,
    maxConcurrencyNum: 100,
    minQueueWaitTime: 1,
    maxQueueWaitTime: 3_600,
    minRequestNum: 1,
    maxRequestNum: 1_000,
    minGPUNum: 1,
    maxGPUNum: 8,
    freeRootfsSize: 100,
    freeLocalVolumeSize: 0,
    cudaVersionList: ['11.8', '12.1', '12.4'],
  },
};
