// Which limit each paid submit has: its model's quota in the platform's quota list (RPM, or IPM),
// unless configuration gives a figure (RATE_LIMIT_QUOTAS). Pure: the quota list is read elsewhere.
import { MEDIA_OPERATIONS, type MediaOperation } from '../workflows/media/contract';
import type { QuotaChoice } from '../config/settings';
import type { PlatformPaths } from '../platform/paths';
import type { Quota } from '../platform/schemas';

/** int32, as the spec types currentQuota: anything outside is not a figure to pace by. */
const MAX_QUOTA = 2_147_483_647;

export interface QuotaLimit {
  operation: MediaOperation;
  quotaObject: string;
  quotaType: 'RPM' | 'IPM';
  /** Requests per quota window; undefined: no limit known (nothing paces this operation). */
  perWindow?: number;
  source: 'quota list' | 'configuration' | 'none';
  /** The tier whose quota the account's current quota matches, when one does. */
  tier?: string;
  /** Why there is no limit, or what was ignored. */
  note?: string;
}

/**
 * The model whose quota paces each operation. Submits of the registry's other models (operation
 * "async") share one quota queue, paced only when RATE_LIMIT_QUOTAS gives "async" a quota object or
 * a figure: one queue per model is the registry's quota name, not yet wired (docs/rate-limits.md).
 */
const MODEL_PATH: Partial<Record<MediaOperation, keyof PlatformPaths>> = {
  'image-to-video': 'imageToVideoModel',
  'text-to-video': 'textToVideoModel',
};

/** The limit of every paced operation, from `quotas` (undefined: the list could not be read). */
export function resolveLimits(
  quotas: readonly Quota[] | undefined,
  choices: Partial<Record<MediaOperation, QuotaChoice>>,
  paths: PlatformPaths,
): QuotaLimit[] {
  return MEDIA_OPERATIONS.map((operation) => {
    const choice = choices[operation] ?? {};
    const modelPath = MODEL_PATH[operation];
    const quotaObject = choice.quotaObject ?? (modelPath ? paths[modelPath] : 'async models');
    const quotaType = choice.quotaType ?? 'RPM';
    const base = { operation, quotaObject, quotaType };
    if (choice.perMinute !== undefined) return { ...base, perWindow: choice.perMinute, source: 'configuration' };
    if (!quotas) return { ...base, source: 'none', note: 'the quota list could not be read' };
    const quota = quotas.find((q) => q.quotaObject === quotaObject && q.quotaType === quotaType);
    if (!quota) return { ...base, source: 'none', note: `no ${quotaType} quota for ${quotaObject} in the quota list` };
    if (quota.currentQuota < 1 || quota.currentQuota > MAX_QUOTA) {
      return { ...base, source: 'none', note: `currentQuota ${quota.currentQuota} is not between 1 and ${MAX_QUOTA}` };
    }
    const tier = quota.quotaItems?.find((t) => t.quota === quota.currentQuota)?.tier;
    return {
      ...base,
      perWindow: quota.currentQuota,
      source: 'quota list',
      ...(tier ? { tier: tier.slice(0, 16) } : {}),
    };
  });
}
