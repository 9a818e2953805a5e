// The emulator's starting state: members and budgets, API keys, instances, quotas and the route →
// quota mapping, task and instance settings, and some historical charges so bill reports have data.
// POST /_emulator/fixtures (or EMULATOR_FIXTURES) replaces whole sections; absent sections keep the
// built-in ones below.
import { z } from 'zod';
import { DECISION_MODEL } from '../../../src/platform/schemas/decision';
import {
  DEFAULT_TASK_SETTINGS,
  TaskSettingsUpdateSchema,
  mergeTaskSettings,
  type TaskSettingsByOperation,
} from './tasks/settings';
import { GEN_API_CATEGORY, LLM_CATEGORY, VIDEO_PRODUCTS, decisionAmount, videoCharge } from './pricing';
import { hash32 } from './hash';

export const DEMO_MEMBER_ID = 'member-demo';
export const DEMO_USER_ID = 'user-demo';
/** 50 USD: enough for a day of tests, small enough that a runaway loop runs out. */
const DEMO_MEMBER_BUDGET = 500_000;

const Id = z.string().min(1).max(255);

/** Instance statuses listed in platform-notes; the field stays a string so a new one is not an error. */
const INSTANCE_STATUSES = [
  'toCreate',
  'creating',
  'pulling',
  'running',
  'toStart',
  'starting',
  'toStop',
  'stopping',
  'exited',
  'toRestart',
  'restarting',
  'toRemove',
  'removing',
  'removed',
  'toReset',
  'resetting',
  'migrating',
  'freezing',
] as const;

/** The quota tiers (spec "Quota list"). */
const QUOTA_TIERS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;

export const MemberFixture = z.strictObject({
  id: Id,
  name: z.string().default(''),
  /** Remaining budget in 1/10000 USD; null = no limit. */
  remaining: z.number().int().nullable(),
});
export type MemberFixture = z.infer<typeof MemberFixture>;

export const ApiKeyFixture = z.strictObject({
  key: z.string().min(8),
  id: Id,
  name: z.string().default(''),
  userId: Id.default(DEMO_USER_ID),
  memberId: Id.default(DEMO_MEMBER_ID),
  /** A disabled key is known but refused with 403. */
  disabled: z.boolean().default(false),
});
export type ApiKeyFixture = z.infer<typeof ApiKeyFixture>;

export const InstanceFixture = z
  .strictObject({
    id: Id,
    name: z.string().default(''),
    status: z.enum(INSTANCE_STATUSES),
    productId: z.string().default(''),
    productName: z.string().default(''),
    gpuNum: z.number().int().min(0).default(1),
    billingMode: z.enum(['subscription', 'payAsYouGo']),
    /** Unix seconds; -1 for pay-as-you-go. Or give expiresInDays, counted from the (emulated) load time. */
    endTime: z.number().int().min(-1).optional(),
    expiresInDays: z.number().optional(),
    statusError: z.strictObject({ state: z.string(), message: z.string() }).nullable().default(null),
    /** The team member who owns it (the list's `memberId` filter); the demo member when absent. */
    memberId: Id.optional(),
  })
  .superRefine((inst, ctx) => {
    if (inst.billingMode === 'subscription' && inst.endTime === undefined && inst.expiresInDays === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['endTime'],
        message: 'is required for a subscription (or give expiresInDays)',
      });
    }
    if (inst.billingMode === 'payAsYouGo' && inst.endTime !== undefined && inst.endTime !== -1) {
      ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'must be -1 for a pay-as-you-go instance' });
    }
  });
export type InstanceFixture = z.infer<typeof InstanceFixture>;

export const QuotaFixture = z.strictObject({
  modal: z.string(),
  quotaObject: z.string().min(1),
  quotaType: z.string().min(1),
  productType: z.string().default('Public Endpoint'),
  currentQuota: z.number().int().min(0),
  defaultQuota: z.number().int().min(0),
  adjustable: z.boolean().default(true),
  quotaItems: z.array(z.strictObject({ tier: z.enum(QUOTA_TIERS), quota: z.number().int().min(0) })),
});
export type QuotaFixture = z.infer<typeof QuotaFixture>;

/** Which quotas a route consumes: one unit per request, checked over a sliding 60 s emulated window. */
export const RateLimitFixture = z.record(
  z.string().min(1),
  z.array(z.strictObject({ quotaObject: z.string().min(1), quotaType: z.enum(['RPM', 'IPM']) })),
);
export type RateLimitFixture = z.infer<typeof RateLimitFixture>;

export const InstanceSettingsSchema = z.strictObject({
  /** Emulated ms in `toRestart` before `restarting`. */
  toRestartMs: z.number().int().min(0).max(86_400_000),
  /** Emulated ms in `restarting` before `running`. */
  restartingMs: z.number().int().min(0).max(86_400_000),
  /** Emulated ms each step of create, start, stop and delete takes (toCreate → creating → pulling …). */
  lifecycleStepMs: z.number().int().min(0).max(86_400_000).default(2_000),
});
export type InstanceSettings = z.infer<typeof InstanceSettingsSchema>;

export const DecisionSettingsSchema = z.strictObject({
  /** Emulated latency of a call without thinking (the spec: usually under 0.2 s). */
  baseLatencyMs: z.number().int().min(0).max(600_000),
  /** Extra emulated latency per thinking token. */
  msPerThinkToken: z.number().min(0).max(10_000),
});
export type DecisionSettings = z.infer<typeof DecisionSettingsSchema>;

const HistoricalCharge = z.strictObject({
  /** Unix seconds. */
  at: z.number().int().min(0),
  apiKeyId: Id,
  productId: z.string().min(1),
  productName: z.string().min(1),
  category: z.string().min(1),
  amount: z.number().int().min(0),
  usage: z.record(z.string().regex(/^billNum\d+$/), z.string()).default({}),
});
export type HistoricalCharge = z.infer<typeof HistoricalCharge>;

export const FixturesInputSchema = z.strictObject({
  members: z.array(MemberFixture).optional(),
  apiKeys: z.array(ApiKeyFixture).optional(),
  instances: z.array(InstanceFixture).optional(),
  quotas: z.array(QuotaFixture).optional(),
  rateLimits: RateLimitFixture.optional(),
  tasks: TaskSettingsUpdateSchema.optional(),
  instanceSettings: InstanceSettingsSchema.partial().optional(),
  decision: DecisionSettingsSchema.partial().optional(),
  historicalCharges: z.array(HistoricalCharge).optional(),
});
export type FixturesInput = z.input<typeof FixturesInputSchema>;
type ParsedFixturesInput = z.output<typeof FixturesInputSchema>;

export interface Fixtures {
  members: MemberFixture[];
  apiKeys: ApiKeyFixture[];
  instances: InstanceFixture[];
  quotas: QuotaFixture[];
  rateLimits: RateLimitFixture;
  tasks: TaskSettingsByOperation;
  instanceSettings: InstanceSettings;
  decision: DecisionSettings;
  historicalCharges: HistoricalCharge[];
}

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
    decision: { baseLatencyMs: 60, msPerThinkToken: 2 },
    historicalCharges: defaultHistory(),
  };
}

/** The built-in fixtures with the given sections replaced (settings sections are merged). */
export function applyFixtures(base: Fixtures, input: ParsedFixturesInput): Fixtures {
  return {
    members: input.members ?? base.members,
    // Keys from EMULATOR_API_KEYS stay valid: a fixture entry for the same key only re-maps it.
    apiKeys: input.apiKeys
      ? [...input.apiKeys, ...base.apiKeys.filter((k) => !input.apiKeys?.some((i) => i.key === k.key))]
      : base.apiKeys,
    instances: input.instances ?? base.instances,
    quotas: input.quotas ?? base.quotas,
    rateLimits: input.rateLimits ?? base.rateLimits,
    tasks: input.tasks ? mergeTaskSettings(base.tasks, input.tasks) : base.tasks,
    instanceSettings: { ...base.instanceSettings, ...input.instanceSettings },
    decision: { ...base.decision, ...input.decision },
    historicalCharges: input.historicalCharges ?? base.historicalCharges,
  };
}

/** Problems that cross sections: keys pointing at unknown members, duplicate ids. */
export function fixtureProblems(f: Fixtures): { field: string; rule: string }[] {
  const problems: { field: string; rule: string }[] = [];
  const members = new Set(f.members.map((m) => m.id));
  f.apiKeys.forEach((k, i) => {
    if (!members.has(k.memberId)) {
      problems.push({
        field: `apiKeys[${i}].memberId`,
        rule: `must name a member of the fixtures ("${k.memberId}" is not one)`,
      });
    }
  });
  const dup = (list: { id: string }[], section: string) => {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      if (seen.has(item.id))
        problems.push({ field: `${section}[${i}].id`, rule: `must be unique ("${item.id}" repeats)` });
      seen.add(item.id);
    });
  };
  dup(f.members, 'members');
  dup(f.apiKeys, 'apiKeys');
  dup(f.instances, 'instances');
  const keys = new Set<string>();
  f.apiKeys.forEach((k, i) => {
    if (keys.has(k.key)) problems.push({ field: `apiKeys[${i}].key`, rule: 'must be unique' });
    keys.add(k.key);
  });
  return problems;
}
