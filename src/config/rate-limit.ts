// The shared rate limits of paid submits (docs/rate-limits.md), from the environment, checked with zod.
import { z } from 'zod';
import { MEDIA_OPERATIONS } from '../workflows/media/contract';
import { parseConfig } from '../platform-client/config';

/** What one operation's limit is: a quota of the quota list, a fixed figure, or both (the figure wins). */
const QuotaChoice = z.strictObject({
  /** The quota list's `quotaObject` (for models, the model id); default: the operation's model path. */
  quotaObject: z.string().min(1).max(200).optional(),
  quotaType: z.enum(['RPM', 'IPM']).optional(),
  /** A fixed limit per quota window, instead of the quota list's `currentQuota`. */
  perMinute: z.number().int().min(1).max(1_000_000).optional(),
});
export type QuotaChoice = z.infer<typeof QuotaChoice>;

const QuotaChoices = z.partialRecord(z.enum(MEDIA_OPERATIONS), QuotaChoice);

const Env = z.object({
  /** `off`: submits still go to their quota's task queue, but nothing paces them (a 429 backs off alone). */
  RATE_LIMIT_PACING: z.enum(['on', 'off']).default('on'),
  /** JSON: operation → QuotaChoice, e.g. {"text-to-video":{"perMinute":30}}. */
  RATE_LIMIT_QUOTAS: z
    .string()
    .max(10_000)
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
    .pipe(QuotaChoices),
  /** How often the quota list is read again. */
  RATE_LIMIT_REFRESH_SECONDS: z.coerce.number().min(5).max(86_400).default(300),
  /** How often a worker reads the shared pace (a hold another worker set reaches it within this). */
  RATE_LIMIT_SYNC_SECONDS: z.coerce.number().min(0.2).max(60).default(2),
  /**
   * The quota window in real seconds: 60 on the platform (RPM, IPM). Lower only against an emulator
   * whose clock runs faster (its minute is 60 / speed real seconds).
   */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().min(0.1).max(3_600).default(60),
  /**
   * The server's read partitions per quota task queue (matching.numTaskqueueReadPartitions). Unset:
   * asked of the server (ListTaskQueuePartitions), and 4, its default, when it cannot say.
   */
  RATE_LIMIT_QUEUE_PARTITIONS: z.coerce.number().int().min(1).max(64).optional(),
});

export type RateLimitSettings = z.output<typeof Env>;

export function loadRateLimitSettings(env: NodeJS.ProcessEnv = process.env): RateLimitSettings {
  return parseConfig(Env, env, 'Rate limit configuration');
}
