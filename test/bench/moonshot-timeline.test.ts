// What a moonshot timeline says held the run back: the machine's saturated minutes and who used the
// cores then, the rates, the backlog, and whether the workers' memory grew with the waits.
import { formatMoonshotSummary, moonshotLimits, type MoonshotSample } from '../../bench/moonshot-timeline';

const reading = (atS: number, over: Partial<MoonshotSample>): MoonshotSample => ({
  atS,
  started: 0,
  startFailures: 0,
  startP95Ms: 0,
  waiting: 0,
  notYetSubmitted: 0,
  completed: 0,
  closedNotCompleted: 0,
  workerRssMb: [300, 300],
  workerCores: 0.1,
  serverRssMb: 500,
  serverCores: 0.1,
  postgresCores: 0.1,
  postgresMb: 100,
  machineCores: 0.5,
  benchCores: 0.05,
  serverRequestsPerS: 10,
  loadAverage1m: 1,
  ...over,
});

describe('moonshotLimits', () => {
  it('reads the cores of the saturated minutes only, the rates, the backlog and the memory per wait', () => {
    const timeline = [
      reading(60, { started: 1_000, waiting: 500, notYetSubmitted: 500, workerRssMb: [400, 400] }),
      reading(120, {
        started: 2_000,
        waiting: 1_500,
        notYetSubmitted: 500,
        workerRssMb: [410, 400],
        machineCores: 1.9,
        workerCores: 0.5,
        serverCores: 0.8,
        postgresCores: 0.4,
        benchCores: 0.1,
      }),
      reading(180, {
        started: 3_000,
        waiting: 2_000,
        completed: 100,
        notYetSubmitted: 900,
        workerRssMb: [420, 410],
        machineCores: 2,
        workerCores: 0.5,
        serverCores: 0.8,
        postgresCores: 0.6,
        benchCores: 0.1,
      }),
    ];
    const l = moonshotLimits(timeline, 2);
    expect(l.saturatedMinutes).toBe(2);
    expect(l.minutes).toBe(3);
    expect(l.meanCores).toEqual({ workers: 0.5, server: 0.8, postgres: 0.5, bench: 0.1, rest: 0.05 });
    expect(l.submittedPerS).toBe(11.67); // (2,000 waiting + 100 completed) / 180 s
    expect(l.startedPerS).toBe(16.67);
    expect(l.backlogAtEnd).toBe(900);
    // From the first reading with a tenth of the peak (500 waiting, 800 MB) to the peak (2,000, 830 MB).
    expect(l.workerRssMbPer10kWaiting).toBe(200);
  });

  it('averages over every minute when the machine never filled, and has no memory slope without growth', () => {
    const timeline = [reading(60, { waiting: 10 }), reading(120, { waiting: 10, workerCores: 0.3 })];
    const l = moonshotLimits(timeline, 2);
    expect(l.saturatedMinutes).toBe(0);
    expect(l.meanCores.workers).toBe(0.2);
    expect(l.workerRssMbPer10kWaiting).toBeNull();
  });

  it('prints a row per reading and the limits', () => {
    const timeline = [reading(60, { started: 5, waiting: 5 })];
    const text = formatMoonshotSummary({
      options: { tasks: 5, durationMs: 60_000, startsPerSecond: 1, workers: 2 },
      timeline,
      startsPerSecondReached: 1,
      peakWaiting: 5,
      paid: 5,
      paidTwice: 0,
      stoppedBy: 'all closed',
      limits: moonshotLimits(timeline, 2),
      checks: [],
      passed: true,
    });
    expect(text.split('\n')).toHaveLength(3 + 1 + 2);
    expect(text).toContain('stopped by: all closed');
    expect(text).toContain('per 10,000 more waiting');
  });
});
