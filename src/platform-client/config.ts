// The API key stays inside the client: never in a workflow input, a log line or an error message.
import { z } from 'zod';
import { DEFAULT_PATHS, formatIssues, parseOrThrow, type PlatformPaths } from '@platform-ops/client';

export interface PlatformConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** Paid calls with nothing to look up afterwards wait longer rather than pay twice (docs/configuration.md). */
  paidCallTimeoutMs?: number;
  paths: PlatformPaths;
  billProductNameParam: string;
}

/** `imageToVideoModel` → `PLATFORM_PATH_IMAGE_TO_VIDEO_MODEL`. */
export const pathEnvName = (key: string): string => `PLATFORM_PATH_${key.replace(/([A-Z])/g, '_$1').toUpperCase()}`;

const PathOverride = z
  .string()
  .regex(/^[^\s]+$/, { error: 'must not contain spaces' })
  .optional();

const EnvSchema = z.object({
  PLATFORM_BASE_URL: z.string().regex(/^https?:\/\/[^\s]+$/, { error: 'must be an http(s) URL' }),
  PLATFORM_API_KEY: z.string().min(1),
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // Below the 2-minute attempt of an activity (PLATFORM_ATTEMPT_MS), which must outlive the call.
  PLATFORM_PAID_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(110_000).default(100_000),
  PLATFORM_BILL_PRODUCT_NAME_PARAM: z.string().min(1).default('productName'),
  ...Object.fromEntries(Object.keys(DEFAULT_PATHS).map((k) => [pathEnvName(k), PathOverride])),
});

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** zod's issues never include a (secret) value. */
export function parseConfig<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return parseOrThrow(schema, value, (issues) => new ConfigError(`${what}: ${formatIssues(issues)}`));
}

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseConfig(EnvSchema, env, 'Platform configuration');
  return {
    baseUrl: e.PLATFORM_BASE_URL.replace(/\/+$/, ''),
    apiKey: e.PLATFORM_API_KEY,
    timeoutMs: e.PLATFORM_TIMEOUT_MS,
    paidCallTimeoutMs: Math.max(e.PLATFORM_TIMEOUT_MS, e.PLATFORM_PAID_CALL_TIMEOUT_MS),
    billProductNameParam: e.PLATFORM_BILL_PRODUCT_NAME_PARAM,
    paths: Object.fromEntries(
      Object.entries(DEFAULT_PATHS).map(([k, path]) => [k, (e as Record<string, unknown>)[pathEnvName(k)] ?? path]),
    ) as PlatformPaths,
  };
}
