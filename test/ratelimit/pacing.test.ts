// The adaptive pace of a shared rate limit and the limits a quota list gives, and how often the workers
// read the shared pace: no server.
import type { Client } from '@temporalio/client';
import { DEFAULT_PATHS, quotaTaskQueue } from '@platform-ops/client';
import { loadRateLimitSettings } from '../../src/config/settings';
import type { PlatformClient } from '../../src/platform-client/client';
import {
  AdaptivePacing,
  decodePacingReason,
  encodePacingReason,
  FULL_PACE,
  resolveLimits,
  SEND_SPREAD_MS,
} from '../../src/ratelimit/pacing';
import { SharedPacing } from '../../src/ratelimit/shared-pacing';
import { quietRuntime } from '../helpers/temporal';

describe('AdaptivePacing', () => {
  const pacing = new AdaptivePacing();

  it('paces a quota so that the burst, the rate and the send spread fit one window, and no further', () => {
    // The busiest window of the platform holds the burst (ceil(rate) per partition) and the requests
    // dispatched over a window and 1.5 s (SEND_SPREAD_MS): 4 + 0.911 × 61.5 = 60.
    expect(SEND_SPREAD_MS).toBe(1_500);
    expect(AdaptivePacing.targetRps(60, 60_000, 4)).toBeCloseTo(56 / 61.5);
    // One partition: its bucket's burst is ceil(rate), 1 here: 57.6 per minute (95.9 %).
    expect(AdaptivePacing.targetRps(60, 60_000, 1)).toBeCloseTo(59 / 61.5);
    // A large quota keeps nearly all of it (the burst, 100 at the first rate tried, is noise there).
    expect(AdaptivePacing.targetRps(6_000, 60_000, 4)).toBeCloseTo((6_000 - 100) / 61.5);
    // A tiny one is never paced below half.
    expect(AdaptivePacing.targetRps(2, 60_000, 4)).toBeCloseTo(1 / 60);
    // A fast rate has a bigger burst: 2 per partition at 6.93/s (8 + 6.93 × 7.5 = 60).
    expect(AdaptivePacing.targetRps(60, 6_000, 4)).toBeCloseTo(52 / 7.5);
    // A short window (an emulator clock 4× fast) pays for the same spread: 84.8 %.
    expect(AdaptivePacing.targetRps(60, 15_000, 1)).toBeCloseTo(56 / 16.5);
    // What the pace lets through in any window never exceeds the quota.
    for (const [quota, windowMs, partitions] of [
      [60, 60_000, 1],
      [60, 30_000, 1],
      [600, 60_000, 4],
      [7, 60_000, 1],
    ]) {
      const rps = AdaptivePacing.targetRps(quota, windowMs, partitions);
      const burst = partitions * Math.max(1, Math.ceil(rps / partitions));
      expect(burst + (rps * (windowMs + SEND_SPREAD_MS)) / 1000).toBeLessThanOrEqual(quota + 1e-9);
    }
  });

  it('a lone 429 only holds until its Retry-After; a bad Retry-After holds at most 15 minutes', () => {
    // The first 429 after a quiet quota window (60 s) is a straggler: held, not slowed.
    const lone = pacing.rateLimited(FULL_PACE, 61_000, 5_000);
    expect(lone).toEqual({ factor: 1, holdUntil: 66_000, changedAt: 61_000 });
    expect(AdaptivePacing.holdRemainingMs(lone, 62_000)).toBe(4_000);
    expect(AdaptivePacing.holdRemainingMs(lone, 67_000)).toBe(0);
    expect(pacing.rateLimited(FULL_PACE, 60_000, 10 ** 12).holdUntil).toBe(60_000 + 15 * 60_000);
    // Another lone one, a quiet window after the hold ended, still only holds.
    expect(pacing.rateLimited(lone, 126_000, 1_000)).toEqual({ factor: 1, holdUntil: 127_000, changedAt: 126_000 });
    // Met as a hold as long as the window ends, a 429 is not lone: the pace is still too fast.
    const longHold = pacing.rateLimited(FULL_PACE, 61_000, 60_000);
    expect(longHold.factor).toBe(1);
    expect(pacing.rateLimited(longHold, 121_500, 1_000).factor).toBeCloseTo(0.8);
  });

  it('a second 429 within the window slows the pace, once per hold', () => {
    const lone = pacing.rateLimited(FULL_PACE, 61_000, 5_000);
    const slowed = pacing.rateLimited(lone, 70_000, 5_000);
    expect(slowed).toEqual({ factor: 0.8, holdUntil: 75_000, changedAt: 70_000 });
    // During a hold, more 429s (requests already on their way) extend it but slow nothing further;
    // a shorter Retry-After never shortens it.
    expect(pacing.rateLimited(slowed, 71_000, 1_000)).toEqual(slowed);
    expect(pacing.rateLimited(slowed, 71_000, 9_000)).toEqual({ ...slowed, holdUntil: 80_000 });
    expect(pacing.rateLimited(slowed, 75_000, 1_000).factor).toBeCloseTo(0.64);
    // The quiet window is the policy's: the worker sets it to the quota window.
    const short = new AdaptivePacing(15_000);
    expect(short.rateLimited(slowed, 90_000, 1_000).factor).toBe(0.8);
  });

  it('never goes below the floor, and recovers a step per quiet period once the hold is over', () => {
    let s = { ...FULL_PACE, changedAt: 1 };
    for (let i = 0; i < 20; i++) s = pacing.rateLimited(s, 0, 0);
    expect(s.factor).toBe(0.25);
    expect(pacing.recover(s, 29_999)).toBe(s);
    const up = pacing.recover(s, 30_000);
    expect(up.factor).toBeCloseTo(0.3);
    expect(pacing.recover(up, 30_001)).toBe(up);
    const held = pacing.rateLimited({ ...FULL_PACE, changedAt: 1 }, 0, 60_000);
    expect(pacing.recover(held, 45_000)).toBe(held);
    expect(pacing.recover(held, 60_000).factor).toBeCloseTo(0.85);
    expect(pacing.recover(FULL_PACE, 10 ** 9)).toBe(FULL_PACE);
  });

  it('the state travels in the rate limit reason; any other reason is an operator’s', () => {
    const s = { factor: 0.64, holdUntil: 1_763_900_000_000, changedAt: 1_763_899_000_000 };
    expect(decodePacingReason(encodePacingReason(s))).toEqual(s);
    expect(encodePacingReason(s).length).toBeLessThan(120);
    for (const other of [
      undefined,
      '',
      'set by hand',
      'platform-ops pacing {bad',
      'platform-ops pacing {"f":2,"h":0,"c":0}',
    ]) {
      expect(decodePacingReason(other)).toBeUndefined();
    }
  });
});

describe('limits from the quota list', () => {
  const quota = (quotaObject: string, currentQuota: number, quotaType = 'RPM') => ({
    quotaObject,
    quotaType,
    currentQuota,
    quotaItems: [
      { tier: 'T1', quota: 2 },
      { tier: 'T5', quota: 60 },
    ],
  });

  it("takes each submit's model RPM, names the tier, and lets configuration win", () => {
    const limits = resolveLimits(
      [quota(DEFAULT_PATHS.imageToVideoModel, 60), quota(DEFAULT_PATHS.textToVideoModel, 2)],
      { 'text-to-video': { perMinute: 30 } },
      DEFAULT_PATHS,
    );
    expect(limits).toEqual([
      {
        operation: 'image-to-video',
        quotaObject: DEFAULT_PATHS.imageToVideoModel,
        quotaType: 'RPM',
        perWindow: 60,
        source: 'quota list',
        tier: 'T5',
      },
      {
        operation: 'text-to-video',
        quotaObject: DEFAULT_PATHS.textToVideoModel,
        quotaType: 'RPM',
        perWindow: 30,
        source: 'configuration',
      },
      // The registry's other models share one queue, unpaced until configuration names its quota.
      {
        operation: 'async',
        quotaObject: 'async models',
        quotaType: 'RPM',
        source: 'none',
        note: 'no RPM quota for async models in the quota list',
        unlisted: true,
      },
    ]);
  });

  it('paces nothing it has no sound figure for, and says why', () => {
    const [missing, bad] = resolveLimits(
      [quota(DEFAULT_PATHS.textToVideoModel, -1), quota(DEFAULT_PATHS.imageToVideoModel, 60, 'TPM')],
      {},
      DEFAULT_PATHS,
    );
    // A quota the list does not name is the platform stating no limit; one out of range is a fault.
    expect(missing).toMatchObject({ source: 'none', note: expect.stringContaining('no RPM quota'), unlisted: true });
    expect(bad).toMatchObject({ source: 'none', note: expect.stringContaining('currentQuota -1') });
    expect(bad.unlisted).toBeUndefined();
    expect(resolveLimits(undefined, {}, DEFAULT_PATHS)[0]).toMatchObject({
      source: 'none',
      note: 'the quota list could not be read',
    });
  });
});

describe('rate limit configuration', () => {
  it('has defaults for the live platform', () => {
    expect(loadRateLimitSettings({})).toEqual({
      FAIRNESS_WEIGHTS: {},
      RATE_LIMIT_PACING: 'on',
      RATE_LIMIT_QUOTAS: {},
      RATE_LIMIT_REFRESH_SECONDS: 300,
      RATE_LIMIT_SYNC_SECONDS: 2,
      RATE_LIMIT_WINDOW_SECONDS: 60,
    });
    expect(
      loadRateLimitSettings({ RATE_LIMIT_QUOTAS: '{"text-to-video":{"quotaObject":"m","quotaType":"IPM"}}' })
        .RATE_LIMIT_QUOTAS,
    ).toEqual({ 'text-to-video': { quotaObject: 'm', quotaType: 'IPM' } });
    expect(loadRateLimitSettings({ FAIRNESS_WEIGHTS: '{"tenant-gold":3}' }).FAIRNESS_WEIGHTS).toEqual({
      'tenant-gold': 3,
    });
  });

  it.each([
    [{ RATE_LIMIT_QUOTAS: 'not json' }, 'RATE_LIMIT_QUOTAS: must be a JSON object'],
    [{ RATE_LIMIT_QUOTAS: '{"text-to-video":{"perMinute":0}}' }, 'RATE_LIMIT_QUOTAS.text-to-video.perMinute'],
    [{ RATE_LIMIT_QUOTAS: '{"video":{"perMinute":10}}' }, 'RATE_LIMIT_QUOTAS'],
    [{ RATE_LIMIT_QUOTAS: '{"text-to-video":{"perMinut":10}}' }, 'perMinut'],
    [{ RATE_LIMIT_PACING: 'maybe' }, 'RATE_LIMIT_PACING'],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS'],
    [{ RATE_LIMIT_SYNC_SECONDS: '600' }, 'RATE_LIMIT_SYNC_SECONDS'],
    [{ FAIRNESS_WEIGHTS: '{"tenant":0}' }, 'FAIRNESS_WEIGHTS.tenant'],
    [{ FAIRNESS_WEIGHTS: 'tenant=2' }, 'FAIRNESS_WEIGHTS: must be a JSON object'],
  ])('refuses %j naming the field', (env, field) => {
    expect(() => loadRateLimitSettings(env)).toThrow(/^Rate limit configuration: /);
    expect(() => loadRateLimitSettings(env)).toThrow(field);
  });
});

// Unit: the Temporal client and the platform are stubs that count the calls; no server.
describe("SharedPacing's reads of the server", () => {
  beforeAll(() => quietRuntime());
  afterEach(() => jest.useRealTimers());

  it.each([
    ['on', 'every sync', 11, 32],
    // Off: nothing to follow between refreshes, which remove our limit.
    ['off', 'only at start and at each refresh', 1, 2],
  ])(
    'with pacing %s, reads a queue with a pace %s, and one without only at start and at each refresh',
    async (pacingSetting, _when, pacedIn20s, pacedIn60s) => {
      jest.useFakeTimers();
      const reads: Record<string, number> = {};
      const workflowService = {
        describeTaskQueue: (req: { taskQueue: { name: string } }) => {
          reads[req.taskQueue.name] = (reads[req.taskQueue.name] ?? 0) + 1;
          return Promise.resolve({});
        },
        updateTaskQueueConfig: () => Promise.resolve({}),
      };
      const platform = { listQuotas: () => Promise.resolve({ data: [], total: 0 }), config: { paths: DEFAULT_PATHS } };
      const pacing = new SharedPacing({
        client: { workflowService } as unknown as Client,
        namespace: 'default',
        taskQueue: 'q',
        platform: platform as unknown as PlatformClient,
        // text-to-video has a quota of its own; the quota list has none for the others.
        settings: loadRateLimitSettings({
          RATE_LIMIT_QUOTAS: '{"text-to-video":{"perMinute":60}}',
          RATE_LIMIT_QUEUE_PARTITIONS: '1',
          RATE_LIMIT_SYNC_SECONDS: '2',
          RATE_LIMIT_REFRESH_SECONDS: '60',
          RATE_LIMIT_PACING: pacingSetting,
        }),
      });
      await pacing.start();
      await jest.advanceTimersByTimeAsync(20_000);
      const paced = quotaTaskQueue('q', 'text-to-video');
      const unpaced = [quotaTaskQueue('q', 'image-to-video'), quotaTaskQueue('q', 'async')];
      expect(reads[paced]).toBe(pacedIn20s);
      for (const queue of unpaced) expect(reads[queue]).toBe(1);
      await jest.advanceTimersByTimeAsync(40_000);
      // The refresh at 60 s reads them all again.
      expect(reads[paced]).toBe(pacedIn60s);
      for (const queue of unpaced) expect(reads[queue]).toBe(2);
      pacing.stop();
    },
  );
});
