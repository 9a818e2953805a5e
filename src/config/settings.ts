// The service's settings from the environment, each group checked with zod (docs/configuration.md).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { z } from 'zod';
import { DEFAULT_TASK_QUEUE, HttpUrl, MEDIA_OPERATIONS } from '@platform-ops/client';
import { LocalArtifactStore } from '../artifacts';
import type { FetchPolicy } from '../fetching/policy';
import { parseConfig } from '../platform-client/config';

const loader =
  <S extends z.ZodType>(schema: S, what: string) =>
  (env: NodeJS.ProcessEnv = process.env): z.output<S> =>
    parseConfig(schema, env, what);

const WorkerEnv = z.object({
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).default(2000),
  WORKER_IN_ATTEMPT_WAITS: z.coerce.number().int().min(0).max(50_000).default(1000),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(40),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(600),
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  WORKER_MAX_HEARTBEAT_THROTTLE_SECONDS: z.coerce.number().min(0.1).max(60).default(3),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  WORKER_REGISTER_SEARCH_ATTRIBUTES: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  WORKER_BUILD_ID: z.string().trim().min(1).max(200).optional(),
  WORKER_MAKE_CURRENT: z.enum(['always', 'if-none']).default('if-none'),
});
export type WorkerSettings = z.output<typeof WorkerEnv>;
export const loadWorkerSettings = loader(
  WorkerEnv.refine((s) => s.WORKER_IN_ATTEMPT_WAITS <= s.WORKER_MAX_CONCURRENT_ACTIVITIES / 2, {
    path: ['WORKER_IN_ATTEMPT_WAITS'],
    message: 'must be at most half of WORKER_MAX_CONCURRENT_ACTIVITIES: the other activities need slots too',
  }),
  'Worker configuration',
);

/** A folder, resolved when read so logs show one absolute place. */
const Dir = (fallback: () => string) =>
  z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform((dir) => path.resolve(dir ?? fallback()));

const Port = z.coerce.number().int().min(1).max(65_535);
const DevServerEnv = z.object({
  TEMPORAL_DEV_PORT: Port.default(7233),
  TEMPORAL_DEV_UI_PORT: Port.default(8233),
  TEMPORAL_DEV_DATA_DIR: Dir(() => path.join(findProjectRoot(), '.data')),
});
export const loadDevServerPorts = loader(DevServerEnv, 'Dev server configuration');

/** A program named by a setting, resolved so that messages show one absolute place. */
const ProgramPath = z
  .string()
  .trim()
  .min(1)
  .optional()
  .transform((file) => file && path.resolve(file));
const TemporalProgramsEnv = z.object({
  TEMPORAL_RELEASES_URL: z
    .string()
    .trim()
    .default('https://github.com')
    .refine((url) => url === '' || HttpUrl.safeParse(url).success, {
      error: 'must be an http(s) URL (a mirror of github.com release paths), or empty for no download',
    })
    .transform((url) => url.replace(/\/+$/, '')),
  TEMPORAL_CLI_PATH: ProgramPath,
  TEMPORAL_SERVER_PATH: ProgramPath,
  TEMPORAL_SQL_TOOL_PATH: ProgramPath,
  TEMPORAL_UI_SERVER_PATH: ProgramPath,
});
export type TemporalProgramSettings = z.output<typeof TemporalProgramsEnv>;
export const loadTemporalProgramSettings = loader(TemporalProgramsEnv, 'Temporal programs configuration');

/** The local stack's payload key file: what a process with no key setting falls back to. */
export const localKeyFile = (env: NodeJS.ProcessEnv = process.env): string =>
  path.join(loadDevServerPorts(env).TEMPORAL_DEV_DATA_DIR, 'payload-keys.json');

const ArtifactEnv = z.object({ ARTIFACT_DIR: Dir(() => path.join(process.cwd(), '.data', 'artifacts')) });
export const loadArtifactSettings = loader(ArtifactEnv, 'Artifact configuration');

export function createArtifactStore(env: NodeJS.ProcessEnv = process.env): LocalArtifactStore {
  return new LocalArtifactStore(loadArtifactSettings(env).ARTIFACT_DIR);
}

const HostEntry = z.string().regex(/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/i, {
  error: 'each entry must be host, host:port or *.domain',
});

const FetchEnv = z.object({
  FETCH_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((list) =>
      list
        ?.split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    )
    .pipe(z.array(HostEntry).optional()),
  INPUT_FILE_DIR: Dir(() => path.join(process.cwd(), '.data', 'inputs')),
  DOWNLOAD_MAX_MB: z.coerce.number().int().min(1).max(1_000_000).default(2_048),
});

export function loadFetchPolicy(env: NodeJS.ProcessEnv, platformBaseUrl: string): FetchPolicy {
  const e = parseConfig(FetchEnv, env, 'Fetch configuration');
  return {
    allowedHosts: e.FETCH_ALLOWED_HOSTS ?? [new URL(platformBaseUrl).host],
    inputFileDir: e.INPUT_FILE_DIR,
    maxDownloadBytes: e.DOWNLOAD_MAX_MB * 2 ** 20,
  };
}

/** One operation's limit: a quota of the quota list, a fixed `perMinute`, or both (the figure wins). */
const QuotaChoice = z.strictObject({
  quotaObject: z.string().min(1).max(200).optional(),
  quotaType: z.enum(['RPM', 'IPM']).optional(),
  perMinute: z.number().int().min(1).max(1_000_000).optional(),
});
export type QuotaChoice = z.infer<typeof QuotaChoice>;

function jsonObjectEnv<S extends z.ZodType>(maxLength: number, schema: S) {
  return z
    .string()
    .max(maxLength)
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return {};
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

const RateLimitEnv = z.object({
  RATE_LIMIT_PACING: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_QUOTAS: jsonObjectEnv(10_000, z.partialRecord(z.enum(MEDIA_OPERATIONS), QuotaChoice)),
  RATE_LIMIT_REFRESH_SECONDS: z.coerce.number().min(5).max(86_400).default(300),
  RATE_LIMIT_SYNC_SECONDS: z.coerce.number().min(0.2).max(60).default(2),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().min(0.1).max(3_600).default(60),
  RATE_LIMIT_QUEUE_PARTITIONS: z.coerce.number().int().min(1).max(64).optional(),
  FAIRNESS_WEIGHTS: jsonObjectEnv(
    100_000,
    z
      .record(z.string().min(1).max(64), z.number().min(0.001).max(1000))
      .refine((w) => Object.keys(w).length <= 1000, 'at most 1000 keys'),
  ),
});
export type RateLimitSettings = z.output<typeof RateLimitEnv>;
export const loadRateLimitSettings = loader(RateLimitEnv, 'Rate limit configuration');

/** host:port, or a bare port (all interfaces). */
const Listen = z
  .string()
  .trim()
  .regex(/^(?:(?:[a-z0-9.-]+|\[[0-9a-f:]+\]):)?\d{1,5}$/i, { error: 'must be host:port or a port' })
  .transform((v) => {
    const colon = v.lastIndexOf(':');
    const host = colon < 0 ? '0.0.0.0' : v.slice(0, colon).replace(/^\[|\]$/g, '');
    return { host, port: Number(colon < 0 ? v : v.slice(colon + 1)) };
  })
  .refine((l) => l.port <= 65_535, { error: 'the port must be at most 65535' });

const WebhookEnv = z
  .object({
    WEBHOOK_PUBLIC_URL: HttpUrl.max(2_000).optional(),
    WEBHOOK_LISTEN: Listen.optional(),
    WEBHOOK_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).max(1_024).optional(),
    WEBHOOK_FIRST_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    WEBHOOK_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    WEBHOOK_MAX_BODY_KB: z.coerce.number().int().min(1).max(10_240).default(256),
  })
  .superRefine((e, ctx) => {
    for (const key of ['WEBHOOK_PUBLIC_URL', 'WEBHOOK_LISTEN'] as const) {
      if (e[key] !== undefined && e.WEBHOOK_SECRET === undefined) {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET'], message: `is required when ${key} is set` });
      }
    }
  });
export type WebhookSettings = z.output<typeof WebhookEnv>;
export const loadWebhookSettings = loader(WebhookEnv, 'Webhook configuration');

export type TemporalSettings = ReturnType<typeof loadTemporalSettings>;

export function loadTemporalSettings(env: NodeJS.ProcessEnv = process.env) {
  const overrideEnvVars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const config = loadClientConnectConfig({ overrideEnvVars });
  const configured = config.connectionOptions.address;
  const address = configured ?? 'localhost:7233';
  const connectionOptions: NativeConnectionOptions = { ...config.connectionOptions, address };
  return {
    address,
    connectionOptions,
    namespace: config.namespace ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE,
    /** True when TEMPORAL_ADDRESS (or a profile) names a server: then no local server is started. */
    addressConfigured: Boolean(configured),
  };
}

export function clientConnectionOptions(settings: TemporalSettings): ConnectionOptions {
  const { tls, apiKey, metadata } = settings.connectionOptions;
  return { address: settings.address, tls, apiKey, metadata };
}

/** The folder holding package.json, from `src/config` and from `lib/src/config` alike. */
export function findProjectRoot(start: string = __dirname): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json found above ${start}`);
  }
}
