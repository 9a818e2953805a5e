// The cluster's waiting-at-scale figures beside a dev-server result file, including one written
// before the file had `workers` and `serverProcess`.
import { formatSideBySide, type WaitingBenchResult } from '../../bench/waiting-at-scale';
import type { WorkerFigures } from '../../bench/support/load-figures';

const worker = (rssPeakMb: number, cpuS: number): WorkerFigures => ({
  workflowType: 'mediaGeneration',
  workflows: 200,
  completed: 200,
  peakOpen: 200,
  startsPerSecond: 6.7,
  rssIdleMb: 240,
  rssPeakMb,
  rssHwmMb: rssPeakMb,
  rssPerOpenWorkflowKb: 500,
  cpuS,
  idleCpuMsPerS: 5,
  cpuMsPerStart: 30,
  historyEventsPerTask: 23,
  historyEventsMax: 23,
  makespanS: 90.5,
});

const server = {
  perWaitingTaskPerMinute: 0.5,
  window: { none: 'unused here' },
  requestsInWindow: 0,
  topInWindow: [],
  perTaskWholeRun: 13,
  perWaitingTaskMinuteWholeRun: 13,
  topWholeRun: [],
  excluded: [],
};

const cluster: WaitingBenchResult = {
  options: { tasks: 200, durationMs: 60_000, startWindowMs: 30_000, cluster: true, workers: 2 },
  worker: worker(350, 7),
  workers: [worker(350, 7), worker(340, 6)],
  workerRssPeakSumMb: 690,
  pollsPerTask: 3,
  pollsPerTaskMax: 3,
  submitLagP95Ms: 400,
  detectionP95Ms: 380,
  server: { ...server, perWaitingTaskPerMinute: null },
  serverProcess: { kind: 'cluster', rssPeakMb: 233, cpuS: 22 },
  makespanS: 90.5,
  idealMakespanS: 90,
  checks: [],
  passed: true,
};

const row = (table: string, label: string) =>
  table
    .split('\n')
    .find((l) => l.startsWith(label))
    ?.split(/\s{2,}/);

describe('formatSideBySide', () => {
  it('reads an older dev-server file (one worker, devServer) and says when the options differ', () => {
    const { workers: _w, workerRssPeakSumMb: _s, serverProcess: _p, ...older } = cluster;
    const table = formatSideBySide(cluster, {
      at: '2026-11-23T11:58:11.314Z',
      passed: true,
      figures: {
        ...older,
        options: { ...older.options, tasks: 300 },
        worker: worker(426, 25),
        server,
        devServer: { rssPeakMb: 222, cpuS: 48 },
      },
    });
    expect(row(table, 'worker processes')).toEqual(['worker processes', '2', '1']);
    expect(row(table, 'worker RSS peak MB, each')).toEqual(['worker RSS peak MB, each', '350 + 340', '426']);
    expect(row(table, 'worker RSS peak MB, summed')).toEqual(['worker RSS peak MB, summed', '690', '426']);
    expect(row(table, 'server requests / waiting task / min')).toEqual([
      'server requests / waiting task / min',
      'not measured',
      '0.5',
    ]);
    expect(row(table, 'server process CPU s')).toEqual(['server process CPU s', '22', '48']);
    expect(table).toContain('different options');
  });

  it('says nothing about options when both runs had the same', () => {
    const table = formatSideBySide(cluster, { at: 'x', passed: true, figures: cluster });
    expect(table).not.toContain('different options');
  });
});
