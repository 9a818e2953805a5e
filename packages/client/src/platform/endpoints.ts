// Serverless endpoints: a deployment of GPU workers behind one URL (the platform notes, "Serverless
// endpoints"). What a config may hold is checked here; what the account's limit ranges allow, against
// `EndpointLimits` before anything is sent.
import { z } from 'zod';

/** Some numbers come back as strings (`freeTimeout`, `maxConcurrent`, `policy.value`, a port). */
const LenientInt = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d{1,15}$/, { error: 'must be a whole number' })
    .transform(Number),
]);

export const EndpointId = z.string().min(1).max(255);
/** Names are how a create is found again, so one line, printable, bounded as the platform bounds it. */
export const EndpointName = z
  .string()
  .min(1)
  .max(220)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    error: 'must start with a letter or digit; letters, digits, ".", "_", "-"',
  });
/** Part of the endpoint's URL; fixed once created. */
export const EndpointAppName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, { error: 'must be lowercase letters, digits and inner hyphens' });

const RESERVED_PORTS = [2222, 2223, 2224];
const Port = z
  .number()
  .int()
  .min(1)
  .max(65_535)
  .refine((p) => !RESERVED_PORTS.includes(p), { error: 'must not be 2222–2224 (the platform keeps them)' });

export const EndpointWorkerConfig = z.strictObject({
  minNum: z.number().int().min(0).max(1_000),
  maxNum: z.number().int().min(1).max(1_000),
  /** Idle seconds before a worker above the minimum is released. */
  freeTimeout: z.number().int().min(0).max(86_400),
  /** Requests one worker takes at once. */
  maxConcurrent: z.number().int().min(1).max(10_000),
  gpuNum: z.number().int().min(1).max(8),
  /** Seconds one request may take. */
  requestTimeout: z.number().int().min(1).max(86_400),
  cudaVersion: z.string().min(1).max(16).optional(),
});

export const EndpointPolicy = z.strictObject({
  /** queue: seconds of queue wait that trigger scaling; concurrency: requests queued. */
  type: z.enum(['queue', 'concurrency']),
  value: z.number().int().min(1).max(86_400),
});

const EnvKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be an environment variable name' });

export const EndpointVolumeMount = z.strictObject({
  type: z.enum(['local', 'network']),
  /** GB, for a local volume. */
  size: z.number().int().min(1).max(100_000).optional(),
  /** The network volume's id. */
  id: z.string().min(1).max(255).optional(),
  mountPath: z
    .string()
    .min(2)
    .max(255)
    .regex(/^\/\S*$/, { error: 'must be an absolute path' }),
});

/** The create body's `endpoint`, and what an update sends again in full. */
export const EndpointConfig = z
  .strictObject({
    name: EndpointName,
    appName: EndpointAppName.optional(),
    workerConfig: EndpointWorkerConfig,
    ports: z.array(z.strictObject({ port: Port })).length(1, { error: 'must hold exactly one port' }),
    policy: EndpointPolicy,
    image: z.strictObject({
      image: z.string().min(1).max(511),
      authId: z.string().min(1).max(255).optional(),
      command: z.string().min(1).max(4_096).optional(),
    }),
    products: z.array(z.strictObject({ id: z.string().min(1).max(255) })).length(1, {
      error: 'must name exactly one GPU product',
    }),
    /** GB. */
    rootfsSize: z.number().int().min(1).max(10_000),
    volumeMounts: z.array(EndpointVolumeMount).max(8).default([]),
    clusterID: z.string().min(1).max(255).optional(),
    envs: z
      .array(z.strictObject({ key: EnvKey, value: z.string().max(32_768) }))
      .max(100)
      .default([]),
    healthy: z.strictObject({
      path: z
        .string()
        .min(1)
        .max(255)
        .regex(/^\/\S*$/, { error: 'must be an absolute path' }),
    }),
  })
  .superRefine((c, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (c.workerConfig.minNum > c.workerConfig.maxNum) {
      issue(['workerConfig', 'minNum'], `must be at most workerConfig.maxNum (${c.workerConfig.maxNum})`);
    }
    c.volumeMounts.forEach((m, i) => {
      if (m.type === 'network' && !m.id) issue(['volumeMounts', i, 'id'], 'is required for a network volume');
      if (m.type === 'local' && m.size === undefined)
        issue(['volumeMounts', i, 'size'], 'is required for a local volume');
    });
    if (c.volumeMounts.some((m) => m.type === 'network') && !c.clusterID) {
      issue(['clusterID'], 'is required with a network volume');
    }
    const keys = c.envs.map((e) => e.key);
    keys.forEach((k, i) => keys.indexOf(k) !== i && issue(['envs', i, 'key'], `repeats "${k}"`));
  });
export type EndpointConfig = z.output<typeof EndpointConfig>;
export type EndpointConfigInput = z.input<typeof EndpointConfig>;

/** What an update cannot change. */
export const FIXED_ON_UPDATE = ['appName', 'products', 'rootfsSize'] as const;

export const CreateEndpointRequest = z.strictObject({ endpoint: EndpointConfig });
export const CreateEndpointResponse = z.looseObject({ id: EndpointId });
export const EndpointIdRequest = z.strictObject({ id: EndpointId });
/** The reference and the platform's CLI send the id in a field called `name`. */
export const DeleteEndpointBody = z.strictObject({ name: EndpointId });

const EndpointStateObject = z.looseObject({
  state: z.string().max(64).default(''),
  error: z.string().max(1_024).nullish(),
  message: z.string().max(4_096).nullish(),
});

export const EndpointWorker = z.looseObject({
  id: z.string().max(255),
  state: EndpointStateObject.default({ state: '' }),
  healthy: z.boolean().default(false),
});
export type EndpointWorker = z.infer<typeof EndpointWorker>;

const LENIENT_WORKER_FIELDS = ['minNum', 'maxNum', 'freeTimeout', 'maxConcurrent', 'gpuNum', 'requestTimeout'] as const;

/** The endpoint as the platform shows it: lenient on numbers, bounded on lists. */
export const Endpoint = z.looseObject({
  id: EndpointId,
  name: z.string().max(255),
  appName: z.string().max(255).optional(),
  state: EndpointStateObject.default({ state: '' }),
  url: z.string().max(2_048).nullish(),
  workerConfig: z.looseObject(
    Object.fromEntries(LENIENT_WORKER_FIELDS.map((k) => [k, LenientInt.optional()])) as Record<
      (typeof LENIENT_WORKER_FIELDS)[number],
      z.ZodOptional<typeof LenientInt>
    >,
  ),
  workers: z.array(EndpointWorker).max(10_000).nullish(),
  products: z
    .array(z.looseObject({ id: z.string().max(255) }))
    .max(16)
    .nullish(),
});
export type Endpoint = z.infer<typeof Endpoint>;

export const GetEndpointResponse = z.looseObject({ endpoint: Endpoint });

export const ENDPOINT_PAGE_MAX = 100;
export const ListEndpointsRequest = z.strictObject({
  pageSize: z.number().int().min(1).max(ENDPOINT_PAGE_MAX),
  pageNum: z.number().int().min(0).max(100_000),
});
export const ListEndpointsResponse = z.looseObject({
  endpoints: z.array(Endpoint).max(ENDPOINT_PAGE_MAX).nullish(),
  total: LenientInt.optional(),
});

/** The update body: the endpoint's id and its whole config again, flat. */
export const UpdateEndpointRequest = z.strictObject({ id: EndpointId, ...EndpointConfig.shape });

const Range = { min: LenientInt.optional(), max: LenientInt.optional() };
/** The limit ranges' names: `GET /endpoint/limit` answers a `min<Name>`/`max<Name>` pair for each. */
export const ENDPOINT_RANGE_NAMES = [
  'RootfsSize',
  'LocalVolumeSize',
  'WorkerNum',
  'FreeTimeout',
  'ConcurrencyNum',
  'QueueWaitTime',
  'RequestNum',
  'GPUNum',
] as const;
export type EndpointRangeName = (typeof ENDPOINT_RANGE_NAMES)[number];

export const EndpointLimitsRequest = z.strictObject({});

/** `GET /endpoint/limit`: `min<Name>`/`max<Name>` pairs, the free disk allowances and the CUDA versions. */
export const EndpointLimits = z.looseObject({
  ...Object.fromEntries(
    ENDPOINT_RANGE_NAMES.flatMap((n) => [
      [`min${n}`, Range.min],
      [`max${n}`, Range.max],
    ]),
  ),
  freeRootfsSize: LenientInt.optional(),
  freeLocalVolumeSize: LenientInt.optional(),
  cudaVersionList: z.array(z.string().max(16)).max(64).nullish(),
}) as z.ZodType<
  Partial<Record<`min${EndpointRangeName}` | `max${EndpointRangeName}`, number>> & {
    freeRootfsSize?: number;
    freeLocalVolumeSize?: number;
    cudaVersionList?: string[] | null;
  }
>;
export type EndpointLimits = z.infer<typeof EndpointLimits>;

/** Which config field each limit range bounds (our reading; docs/workflows/serverlessEndpoint.md). */
const RANGE_FIELDS: [EndpointRangeName, string, (c: EndpointConfig) => number | undefined][] = [
  ['WorkerNum', 'workerConfig.minNum', (c) => c.workerConfig.minNum],
  ['WorkerNum', 'workerConfig.maxNum', (c) => c.workerConfig.maxNum],
  ['FreeTimeout', 'workerConfig.freeTimeout', (c) => c.workerConfig.freeTimeout],
  ['ConcurrencyNum', 'workerConfig.maxConcurrent', (c) => c.workerConfig.maxConcurrent],
  ['GPUNum', 'workerConfig.gpuNum', (c) => c.workerConfig.gpuNum],
  ['RootfsSize', 'rootfsSize', (c) => c.rootfsSize],
  ['QueueWaitTime', 'policy.value', (c) => (c.policy.type === 'queue' ? c.policy.value : undefined)],
  ['RequestNum', 'policy.value', (c) => (c.policy.type === 'concurrency' ? c.policy.value : undefined)],
];

/** Each way `config` leaves the account's limit ranges, naming the field and the rule; empty when it fits. */
export function outsideEndpointLimits(config: EndpointConfig, limits: EndpointLimits): string[] {
  const problems: string[] = [];
  const check = (name: EndpointRangeName, field: string, value: number | undefined) => {
    const min = limits[`min${name}`];
    const max = limits[`max${name}`];
    if (value === undefined) return;
    if (min !== undefined && value < min)
      problems.push(`${field} must be at least ${min} (limit ${name}), not ${value}`);
    if (max !== undefined && value > max)
      problems.push(`${field} must be at most ${max} (limit ${name}), not ${value}`);
  };
  for (const [name, field, read] of RANGE_FIELDS) check(name, field, read(config));
  config.volumeMounts.forEach(
    (m, i) => m.type === 'local' && check('LocalVolumeSize', `volumeMounts.${i}.size`, m.size),
  );
  const cuda = limits.cudaVersionList;
  const wanted = config.workerConfig.cudaVersion;
  if (wanted && cuda && cuda.length > 0 && !cuda.includes(wanted)) {
    problems.push(`workerConfig.cudaVersion must be one of ${cuda.join(', ')}, not ${wanted}`);
  }
  return problems;
}
