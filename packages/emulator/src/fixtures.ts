// The shape of the emulator's fixtures: members and budgets, API keys, instances, quotas and the route →
// quota mapping, task and instance settings, historical charges. POST /_emulator/fixtures (or
// EMULATOR_FIXTURES) replaces whole sections; absent sections keep the built-in ones of
// fixtures-defaults.ts.
import { ENDPOINT_RANGE_NAMES, type EndpointRangeName } from '@platform-ops/client';
import { z } from 'zod';
import { TaskSettingsUpdateSchema, mergeTaskSettings, type TaskSettingsByOperation } from './task-settings';

export const DEMO_MEMBER_ID = 'member-demo';
export const DEMO_USER_ID = 'user-demo';

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
export const QUOTA_TIERS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;

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

const LimitValue = z.number().int().min(0).max(1_000_000);

/** `GET /endpoint/limit`'s answer: a `min<Name>`/`max<Name>` pair per range, the free disk, the CUDA versions. */
const EndpointLimitsFixture = z.strictObject({
  ...(Object.fromEntries(
    ENDPOINT_RANGE_NAMES.flatMap((n) => [`min${n}`, `max${n}`]).map((k) => [k, LimitValue]),
  ) as Record<`${'min' | 'max'}${EndpointRangeName}`, typeof LimitValue>),
  freeRootfsSize: LimitValue,
  freeLocalVolumeSize: LimitValue,
  cudaVersionList: z.array(z.string().min(1).max(16)).max(64),
});

const EndpointSettingsSchema = z.strictObject({
  /** Emulated ms a worker waits to be placed, pulls its image, then starts; and an endpoint terminates. */
  pendingMs: z.number().int().min(0).max(86_400_000),
  pullMs: z.number().int().min(0).max(86_400_000),
  startMs: z.number().int().min(0).max(86_400_000),
  deleteMs: z.number().int().min(0).max(86_400_000),
  /** The account's quota: live endpoints, and their minimum workers together. */
  maxEndpoints: z.number().int().min(0).max(10_000),
  maxWorkers: z.number().int().min(0).max(100_000),
  limits: EndpointLimitsFixture,
});
export type EndpointSettings = z.infer<typeof EndpointSettingsSchema>;
/** Fixtures and the admin API change some settings, and some limits, keeping the rest. */
export const EndpointSettingsUpdate = EndpointSettingsSchema.extend({
  limits: EndpointLimitsFixture.partial(),
}).partial();
export type EndpointSettingsUpdate = z.infer<typeof EndpointSettingsUpdate>;

export function mergeEndpointSettings(base: EndpointSettings, update: EndpointSettingsUpdate = {}): EndpointSettings {
  return { ...base, ...update, limits: { ...base.limits, ...update.limits } };
}

/** Ranges whose minimum passes their maximum: the platform would refuse every config. */
export function endpointSettingsProblems(s: EndpointSettings): { field: string; rule: string }[] {
  return ENDPOINT_RANGE_NAMES.filter((n) => s.limits[`min${n}`] > s.limits[`max${n}`]).map((n) => ({
    field: `endpointSettings.limits.min${n}`,
    rule: `must be at most limits.max${n} (${s.limits[`max${n}`]})`,
  }));
}

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
  endpointSettings: EndpointSettingsUpdate.optional(),
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
  endpointSettings: EndpointSettings;
  decision: DecisionSettings;
  historicalCharges: HistoricalCharge[];
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
    endpointSettings: mergeEndpointSettings(base.endpointSettings, input.endpointSettings),
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
  problems.push(...endpointSettingsProblems(f.endpointSettings));
  const keys = new Set<string>();
  f.apiKeys.forEach((k, i) => {
    if (keys.has(k.key)) problems.push({ field: `apiKeys[${i}].key`, rule: 'must be unique' });
    keys.add(k.key);
  });
  return problems;
}
