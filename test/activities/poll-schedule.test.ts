// The poll schedule: aims just past the end the hints predict, approaches far ends in steps, backs
// off with jitter without hints, and always stays within the configured bounds.
import {
  estimateRemainingMs,
  nextPollDelayMs,
  type PollSample,
} from '../../src/operations/mediaGeneration/activities-poll';

const opts = { minIntervalMs: 1_000, maxIntervalMs: 30_000, marginMs: 250 };
const sample = (observedAt: number, status: string, eta?: number, progressPercent?: number): PollSample => ({
  observedAt,
  status,
  eta,
  progressPercent,
});

describe('estimateRemainingMs', () => {
  it('reads the eta in seconds', () => {
    expect(estimateRemainingMs(sample(0, 'TASK_STATUS_PROCESSING', 7))).toBe(7_000);
  });
  it('uses the progress rate between two samples of one phase, when it predicts an earlier end', () => {
    // 10 % → 30 % in 2 s: 70 % left at 10 %/s = 7 s, earlier than the rounded-up eta of 8 s.
    const prev = sample(0, 'TASK_STATUS_PROCESSING', 10, 10);
    expect(estimateRemainingMs(sample(2_000, 'TASK_STATUS_PROCESSING', 8, 30), prev)).toBeCloseTo(7_000);
  });
  it('ignores progress across a status change, and a zero eta', () => {
    const prev = sample(0, 'TASK_STATUS_QUEUED', 0, 0);
    expect(estimateRemainingMs(sample(1_000, 'TASK_STATUS_PROCESSING', 0, 20), prev)).toBeUndefined();
  });
});

describe('nextPollDelayMs', () => {
  it('polls just after a near end', () => {
    expect(nextPollDelayMs(opts, sample(0, 'TASK_STATUS_PROCESSING', 5), undefined, 0)).toBe(5_250);
  });
  it('samples again half-way when it has progress but no rate yet, then lands just past the end', () => {
    const first = sample(0, 'TASK_STATUS_PROCESSING', 10, 0);
    expect(nextPollDelayMs(opts, first, undefined, 0)).toBe(5_000);
    // 0 % → 50 % in 5 s: 5 s left (the eta of 6 s is rounded up).
    const second = sample(5_000, 'TASK_STATUS_PROCESSING', 6, 50);
    expect(nextPollDelayMs(opts, second, first, 0)).toBe(5_250);
  });
  it('approaches a far end in steps', () => {
    expect(nextPollDelayMs(opts, sample(0, 'TASK_STATUS_PROCESSING', 25), undefined, 0)).toBe(20_000);
  });
  it('aims at a far end straight away once two samples taken apart predict it alike', () => {
    const wide = { ...opts, maxIntervalMs: 3_600_000 };
    // Submitted with 600 s to go; 480 s later the eta says 120 s: the same end, so no more steps.
    const first = sample(0, 'TASK_STATUS_QUEUED', 600, 0);
    expect(nextPollDelayMs(wide, first, undefined, 0)).toBe(480_000);
    const second = sample(480_000, 'TASK_STATUS_PROCESSING', 120, 80);
    expect(nextPollDelayMs(wide, second, first, 0)).toBe(120_250);
    // The earlier of two rounded-up predictions wins.
    expect(nextPollDelayMs(wide, sample(480_400, 'TASK_STATUS_PROCESSING', 120, 80), first, 0)).toBe(119_850);
  });
  it('keeps stepping while the eta drifts', () => {
    const wide = { ...opts, maxIntervalMs: 3_600_000 };
    const first = sample(0, 'TASK_STATUS_QUEUED', 600, 0);
    // The end moved 30 s later: more than 1 s + 1 % of the 150 s left.
    expect(nextPollDelayMs(wide, sample(480_000, 'TASK_STATUS_PROCESSING', 150), first, 0)).toBe(120_000);
  });
  it('never waits longer than maxIntervalMs nor less than minIntervalMs', () => {
    expect(nextPollDelayMs(opts, sample(0, 'TASK_STATUS_QUEUED', 3_600), undefined, 0)).toBe(30_000);
    expect(nextPollDelayMs(opts, sample(0, 'TASK_STATUS_PROCESSING', 0.1), undefined, 0)).toBe(1_000);
  });
  it('backs off exponentially with full jitter when there is no hint', () => {
    const at = (n: number, r: number) => nextPollDelayMs(opts, sample(0, 'TASK_STATUS_QUEUED'), undefined, n, () => r);
    expect(at(1, 1)).toBe(2_000);
    expect(at(3, 1)).toBe(8_000);
    expect(at(10, 1)).toBe(30_000);
    expect(at(3, 0)).toBe(1_000);
    expect(at(3, 0.5)).toBe(4_500);
  });
});
