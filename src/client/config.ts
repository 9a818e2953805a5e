// Client configuration from the environment, checked with zod. The API key is read here and kept
// only inside the client: it never enters a workflow input, a log line or an error message.
import { z } from 'zod';
import { DEFAULT_PATHS, type PlatformPaths } from '../platform/paths';
import { formatIssues, parseOrThrow } from '../platform/validation';

export interface PlatformConfig {
  baseUrl: string;
  apiKey: string;
  /** Per-call timeout; the client never retries on its own. */
  timeoutMs: number;
  /**
   * Timeout of calls that cost money and leave nothing to look up afterwards (media submits, decision
   * evaluations): a request given up on may still be carried out and charged, and sending it again
   * pays twice, so a slow answer is waited for longer. Defaults to `timeoutMs`.
   */
  paidCallTimeoutMs?: number;
  paths: PlatformPaths;
  /** Query name of the bill list's product-name filter (not shown in the spec). */
  billProductNameParam: string;
}

/** `imageToVideoModel` → `PLATFORM_PATH_IMAGE_TO_VIDEO_MODEL`. */
export const pathEnvName = (key: keyof PlatformPaths): string =>
  `PLATFORM_PATH_${key.replace(/([A-Z])/g, '_$1').toUpperCase()}`;

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
  ...Object.fromEntries(Object.keys(DEFAULT_PATHS).map((k) => [pathEnvName(k as keyof PlatformPaths), PathOverride])),
});

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses settings with `schema`, or throws a ConfigError "<what>: field: rule; …". zod's issues never
 * include the input value, so a secret in the environment cannot leak through the message.
 */
export function parseConfig<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return parseOrThrow(schema, value, (issues) => new ConfigError(`${what}: ${formatIssues(issues)}`));
}

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseConfig(EnvSchema, env, 'Platform configuration') as Record<string, string | number | undefined>;
  const paths = { ...DEFAULT_PATHS };
  for (const key of Object.keys(DEFAULT_PATHS) as Array<keyof PlatformPaths>) {
    const override = e[pathEnvName(key)];
    if (typeof override === 'string') paths[key] = override;
  }
  return {
    baseUrl: String(e.PLATFORM_BASE_URL).replace(/\/+$/, ''),
    apiKey: String(e.PLATFORM_API_KEY),
    timeoutMs: Number(e.PLATFORM_TIMEOUT_MS),
    paidCallTimeoutMs: Math.max(Number(e.PLATFORM_TIMEOUT_MS), Number(e.PLATFORM_PAID_CALL_TIMEOUT_MS)),
    billProductNameParam: String(e.PLATFORM_BILL_PRODUCT_NAME_PARAM),
    paths,
  };
}
