// The worker's first call: before it polls for work, it lists the platform's models (the spec's
// "GET /v1/models is used as the first call") and reads the balance. A key the platform refuses stops
// the worker with a clear message, instead of failing the first workflow that reaches a paid call.
// An outage does not: the workflows retry through it, so the worker starts and says so.
import type { PlatformClient } from './client';
import { ConfigError } from './config';
import { PlatformError } from './errors';

export interface FirstCallReport {
  /** Models the platform lists; undefined when it could not be asked. */
  models?: number;
  availableBalance?: string;
  /** What could not be checked, and why (an outage, a platform without the balance route). */
  warnings: string[];
}

/** The first call's own timeout: a start should not hang on a slow platform. */
const FIRST_CALL_TIMEOUT_MS = 10_000;

const refusedKey = (err: unknown): err is PlatformError =>
  err instanceof PlatformError && (err.status === 401 || err.status === 403);

/**
 * The refusal, naming the platform, the call and the reason, never the key (nor the platform's own
 * message, which could echo it).
 */
function keyRefused(platform: PlatformClient, path: string, err: PlatformError): ConfigError {
  return new ConfigError(
    `The platform at ${platform.config.baseUrl} refused the worker's API key on its first call ` +
      `(GET ${path}: HTTP ${err.status}${err.reason ? ` ${err.reason}` : ''}). Set PLATFORM_API_KEY to a valid ` +
      'key for this platform; the worker did not start.',
  );
}

export async function checkFirstCall(platform: PlatformClient): Promise<FirstCallReport> {
  const { paths } = platform.config;
  const timeoutMs = Math.min(FIRST_CALL_TIMEOUT_MS, platform.config.timeoutMs);
  const report: FirstCallReport = { warnings: [] };
  const describe = (err: unknown) =>
    err instanceof PlatformError ? `${err.kind} ${err.status ?? ''}`.trim() : 'error';
  try {
    report.models = (await platform.listModels({ timeoutMs })).data.length;
  } catch (err) {
    if (refusedKey(err)) throw keyRefused(platform, paths.listModels, err);
    report.warnings.push(`could not list the models (GET ${paths.listModels}: ${describe(err)}); starting anyway`);
  }
  try {
    report.availableBalance = (await platform.getBalance({ timeoutMs })).availableBalance?.toString();
  } catch (err) {
    if (refusedKey(err)) throw keyRefused(platform, paths.balanceDetail, err);
    report.warnings.push(`could not read the balance (GET ${paths.balanceDetail}: ${describe(err)})`);
  }
  return report;
}
