// The pure part of a shared rate limit: each submit's limit, its pace, a 429's slow-down and the recovery.
import { z } from 'zod';
import { MEDIA_OPERATIONS, type MediaOperation, type PlatformPaths, type Quota } from '@platform-ops/client';
import type { QuotaChoice } from '../config/settings';

/** What all workers share about one quota's pace. Times are epoch ms. */
export interface PacingState {
  /** The share of the quota's pace in use, from MIN_FACTOR to 1. */
  factor: number;
  holdUntil: number;
  /** When the factor last changed or a lone 429 was met: recovery and loneness count from it. */
  changedAt: number;
}

const DECREASE = 0.8;
const MIN_FACTOR = 0.25;
const RECOVER_STEP = 0.05;
const RECOVER_EVERY_MS = 30_000;

export const FULL_PACE: PacingState = { factor: 1, holdUntil: 0, changedAt: 0 };

/** How much later than another a request dispatched at once may reach the platform (docs/rate-limits.md). */
export const SEND_SPREAD_MS = 1_500;

// A bad Retry-After must not park a quota for ever.
const MAX_HOLD_MS = 15 * 60_000;

export class AdaptivePacing {
  /** A 429 after `loneAfterMs` with no change and no hold is lone (a straggler): its hold alone answers it. */
  constructor(readonly loneAfterMs = 60_000) {}

  /** The partitions' burst plus the rate over the window and SEND_SPREAD_MS stay within the quota. */
  static targetRps(perWindow: number, windowMs: number, partitions: number): number {
    const seconds = (windowMs + SEND_SPREAD_MS) / 1000;
    const burstAt = (r: number) => partitions * Math.max(1, Math.ceil(r / partitions));
    let rps = perWindow / seconds;
    // Lower the rate until it and its own burst fit (the burst shrinks with the rate).
    for (let i = 0; i < 8; i++) {
      const fits = (perWindow - burstAt(rps)) / seconds;
      if (fits >= rps) break;
      rps = fits;
    }
    return Math.max((perWindow * 0.5) / (windowMs / 1000), rps);
  }

  /** Slower once per hold (429s of requests already on their way add nothing); a lone 429 only holds. */
  rateLimited(state: PacingState, now: number, retryAfterMs: number | undefined): PacingState {
    const hold = Math.min(Math.max(0, retryAfterMs ?? 0), MAX_HOLD_MS);
    const holdUntil = Math.max(state.holdUntil, now + hold);
    if (now < state.holdUntil) return { ...state, holdUntil };
    // Quiet means no 429 and no hold for a whole window: a 429 met as the last hold ends (a Retry-After
    // may be as long as the window) says the pace is still too fast.
    const quietFor = now - Math.max(state.changedAt, state.holdUntil);
    if (quietFor >= this.loneAfterMs) return { ...state, holdUntil, changedAt: now };
    return { factor: Math.max(MIN_FACTOR, state.factor * DECREASE), holdUntil, changedAt: now };
  }

  recover(state: PacingState, now: number): PacingState {
    if (state.factor >= 1 || now < state.holdUntil || now - state.changedAt < RECOVER_EVERY_MS) return state;
    return { ...state, factor: Math.min(1, state.factor + RECOVER_STEP), changedAt: now };
  }

  static holdRemainingMs(state: PacingState, now: number): number {
    return Math.max(0, state.holdUntil - now);
  }
}

// int32, as the spec types currentQuota: anything outside is not a figure to pace by.
const MAX_QUOTA = 2_147_483_647;

export interface QuotaLimit {
  operation: MediaOperation;
  quotaObject: string;
  quotaType: 'RPM' | 'IPM';
  /** Requests per quota window; undefined: nothing paces this operation. */
  perWindow?: number;
  source: 'quota list' | 'configuration' | 'none';
  tier?: string;
  note?: string;
  /** The quota list answered without this quota: the platform states no limit. */
  unlisted?: boolean;
}

// The registry's other models ("async") share one queue, paced only when RATE_LIMIT_QUOTAS configures it.
const MODEL_PATH: Partial<Record<MediaOperation, keyof PlatformPaths>> = {
  'image-to-video': 'imageToVideoModel',
  'text-to-video': 'textToVideoModel',
};

/** `quotas` undefined: the list could not be read. */
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
    if (!quota) {
      const note = `no ${quotaType} quota for ${quotaObject} in the quota list`;
      return { ...base, source: 'none', note, unlisted: true };
    }
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

// The state rides in the free-text reason the server keeps with each rate limit, so workers share it with no store
// of their own. A reason not ours is an operator's (`temporal task-queue config set`): that limit stays.
const REASON_PREFIX = 'platform-ops pacing ';

const EncodedState = z.strictObject({
  f: z.number().min(0).max(1),
  h: z.number().int().min(0).max(8.64e15),
  c: z.number().int().min(0).max(8.64e15),
});

export function encodePacingReason(state: PacingState): string {
  return REASON_PREFIX + JSON.stringify({ f: Number(state.factor.toFixed(4)), h: state.holdUntil, c: state.changedAt });
}

export function decodePacingReason(reason: string | null | undefined): PacingState | undefined {
  if (!reason?.startsWith(REASON_PREFIX) || reason.length > 200) return undefined;
  try {
    const parsed = EncodedState.safeParse(JSON.parse(reason.slice(REASON_PREFIX.length)));
    return parsed.success ? { factor: parsed.data.f, holdUntil: parsed.data.h, changedAt: parsed.data.c } : undefined;
  } catch {
    return undefined;
  }
}
