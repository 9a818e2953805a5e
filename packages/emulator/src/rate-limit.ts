// Quota enforcement: a route consumes the quotas the fixtures map it to (rateLimits), one unit per
// request, per user, over a sliding 60-second window of emulated time. Over the limit: 429
// RATE_LIMIT_EXCEEDED with Retry-After (real seconds until the oldest unit leaves the window).
import type { FastifyReply } from 'fastify';
import type { EmulatorClock } from './clock';
import type { Counters } from './counters';
import type { QuotaFixture, RateLimitFixture } from './fixtures';
import { sendPlatformError } from './http';

const WINDOW_MS = 60_000;

/** A user's recent units for one quota: emulated ms, oldest first (a ring would do; these stay short). */
type Window = number[];

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private quotas: QuotaFixture[] = [];
  private mapping: RateLimitFixture = {};

  constructor(
    private readonly clock: EmulatorClock,
    private readonly counters: Counters,
  ) {}

  load(quotas: QuotaFixture[], mapping: RateLimitFixture): void {
    this.quotas = quotas;
    this.mapping = mapping;
    this.windows.clear();
  }

  /** The live quota list (the quota-list route and the admin API read and change it). */
  list(): QuotaFixture[] {
    return this.quotas;
  }

  find(quotaObject: string, quotaType: string): QuotaFixture | undefined {
    return this.quotas.find((q) => q.quotaObject === quotaObject && q.quotaType === quotaType);
  }

  /**
   * Takes one unit of every quota the route consumes for `userId`. Returns true if allowed; otherwise
   * answers 429 on `reply` (nothing is taken from any quota) and returns false.
   */
  take(reply: FastifyReply, routeKey: string, userId: string): boolean {
    const limits = this.mapping[routeKey];
    if (!limits || limits.length === 0) return true;
    const now = this.clock.now();
    const windows: Window[] = [];
    for (const limit of limits) {
      const quota = this.find(limit.quotaObject, limit.quotaType);
      if (!quota) continue;
      const key = `${userId}\u0000${limit.quotaType}\u0000${limit.quotaObject}`;
      let window = this.windows.get(key);
      if (!window) {
        window = [];
        this.windows.set(key, window);
      }
      while (window.length > 0 && window[0] <= now - WINDOW_MS) window.shift();
      if (window.length + 1 > quota.currentQuota) {
        // The (length - quota)th unit must leave the window before one more fits; a quota of 0 never frees
        // up, so it answers a whole window.
        const freeAtMs =
          quota.currentQuota > 0 ? window[window.length - quota.currentQuota] + WINDOW_MS : now + WINDOW_MS;
        const retryAfter = Math.max(1, Math.ceil(this.clock.realDelay(freeAtMs - now) / 1000));
        this.counters.rateLimited();
        reply.header('retry-after', String(retryAfter));
        void sendPlatformError(
          reply,
          429,
          'RATE_LIMIT_EXCEEDED',
          `rate limit exceeded: ${quota.currentQuota} ${quota.quotaType} for ${quota.quotaObject}`,
          {
            quota_object: quota.quotaObject,
            quota_type: quota.quotaType,
            limit: quota.currentQuota,
            retry_after_seconds: retryAfter,
          },
        );
        return false;
      }
      windows.push(window);
    }
    for (const w of windows) w.push(now);
    return true;
  }

  reset(): void {
    this.windows.clear();
  }
}
