// What the receiver remembers, all in bounded memory: the deliveries it has made (a replayed or
// duplicated callback gets 409 and no second signal), a token bucket per callback URL (a flood on one
// URL gets 429), and the signals in flight (a flood across URLs gets 429 once too many wait on
// Temporal). Plain class, unit-tested without a server. Lost on a restart, which is harmless: the
// workflow ignores an end it already has.

export interface GuardLimits {
  /** Deliveries remembered (the oldest forgotten first). */
  maxRemembered: number;
  /** Callbacks one URL may send at once, and how fast that allowance comes back. */
  burstPerUrl: number;
  refillMsPerUrl: number;
  /** Signals waiting on Temporal at once, over all URLs. */
  maxInFlight: number;
}

export const DEFAULT_GUARD_LIMITS: GuardLimits = {
  maxRemembered: 100_000,
  // The platform sends one callback and up to 5 retries per task; a few duplicates on top are fine.
  burstPerUrl: 10,
  refillMsPerUrl: 10_000,
  maxInFlight: 256,
};

/** Map with insertion order as age: past `max` entries, the oldest goes. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export class CallbackGuard {
  private readonly delivered = new Map<string, true>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private inFlight = 0;

  constructor(
    private readonly limits: GuardLimits = DEFAULT_GUARD_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one callback from `url`'s allowance; false when it is used up. */
  admit(url: string): boolean {
    const now = this.now();
    const b = this.buckets.get(url) ?? { tokens: this.limits.burstPerUrl, at: now };
    const tokens = Math.min(this.limits.burstPerUrl, b.tokens + (now - b.at) / this.limits.refillMsPerUrl);
    const ok = tokens >= 1;
    remember(this.buckets, url, { tokens: ok ? tokens - 1 : tokens, at: now }, this.limits.maxRemembered);
    return ok;
  }

  wasDelivered(delivery: string): boolean {
    return this.delivered.has(delivery);
  }

  markDelivered(delivery: string): void {
    remember(this.delivered, delivery, true, this.limits.maxRemembered);
  }

  /** A delivery that failed: a retry of it is not a replay. */
  forget(delivery: string): void {
    this.delivered.delete(delivery);
  }

  /** Counts a signal in flight; false (nothing counted) when too many are. */
  enter(): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return false;
    this.inFlight++;
    return true;
  }

  leave(): void {
    this.inFlight--;
  }
}
