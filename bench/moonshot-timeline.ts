// The moonshot's timeline (bench/moonshot.ts): one reading a minute (SAMPLE_MS there), what it says held the run back,
// and how both are printed, with the run's options and result. Pure, so the reading of a run can be tested without
// running one.
import { formatTable } from './media/tables';
import { round } from './support/stats';
import type { Check } from './support/checks';

export interface MoonshotOptions {
  tasks: number;
  /** Every generation's emulated (= real) time on the platform. */
  durationMs: number;
  /** The pace of starts asked for; the server's answers may hold it lower (at most MAX_STARTS_IN_FLIGHT wait). */
  startsPerSecond: number;
  /** Stop this long after the first start, however far it got; undefined: until every workflow has closed. */
  budgetMs?: number;
  workers: number;
}

export interface MoonshotResult {
  options: MoonshotOptions;
  timeline: MoonshotSample[];
  startsPerSecondReached: number;
  peakWaiting: number;
  /** Submits the platform carried out, and the extra ones: calls beyond the first for one generation. */
  paid: number;
  paidTwice: number;
  stoppedBy: 'budget' | 'all closed' | 'worker lost';
  limits: MoonshotLimits;
  checks: Check[];
  passed: boolean;
}

/** One reading; CPU figures are over the minute before it, in cores (1 = one core busy). */
export interface MoonshotSample {
  atS: number;
  started: number;
  startFailures: number;
  startP95Ms: number;
  /** Open workflows whose generation the platform has taken (their task id is set): the waits. */
  waiting: number;
  /** Started, not yet submitted: first workflow tasks and submits in the queues. */
  notYetSubmitted: number;
  completed: number;
  closedNotCompleted: number;
  workerRssMb: number[];
  workerCores: number;
  serverRssMb: number;
  serverCores: number;
  postgresCores: number;
  postgresMb: number;
  machineCores: number;
  /** This benchmark's own process (its starts and counts), part of machineCores. */
  benchCores: number;
  serverRequestsPerS: number;
  loadAverage1m: number;
}

/** What the timeline says held the run back (moonshotLimits). */
export interface MoonshotLimits {
  /** Minutes in which the machine's cores were at least 90 % busy, of all minutes read. */
  saturatedMinutes: number;
  minutes: number;
  /** Mean cores of each part over the saturated minutes (all minutes when none was). */
  meanCores: { workers: number; server: number; postgres: number; bench: number; rest: number };
  /** Generations the platform took per second, and starts accepted per second, over the whole run. */
  submittedPerS: number;
  startedPerS: number;
  /** Started but not yet submitted at the end: the backlog of first workflow tasks and submits. */
  backlogAtEnd: number;
  /**
   * Growth of the workers' summed RSS per 10,000 more waiting, from the first reading with a tenth of
   * the peak waiting to the reading with the peak: near 0 when memory is bounded by the cache.
   */
  workerRssMbPer10kWaiting: number | null;
}

/** The limits a run met, read from its timeline on a machine of `cores` cores. */
export function moonshotLimits(timeline: MoonshotSample[], cores: number): MoonshotLimits {
  const saturated = timeline.filter((s) => s.machineCores >= 0.9 * cores);
  const over = saturated.length > 0 ? saturated : timeline;
  const mean = (f: (s: MoonshotSample) => number) =>
    round(over.reduce((a, s) => a + f(s), 0) / Math.max(1, over.length));
  const end = timeline[timeline.length - 1];
  const seconds = Math.max(1, end?.atS ?? 0);
  const peak = timeline.reduce<MoonshotSample | undefined>((p, s) => (!p || s.waiting > p.waiting ? s : p), undefined);
  const from = peak && timeline.find((s) => s.waiting >= peak.waiting / 10);
  const sum = (s: MoonshotSample) => s.workerRssMb.reduce((a, b) => a + b, 0);
  const grown =
    from && peak && peak.waiting > from.waiting ? (sum(peak) - sum(from)) / (peak.waiting - from.waiting) : null;
  return {
    saturatedMinutes: saturated.length,
    minutes: timeline.length,
    meanCores: {
      workers: mean((s) => s.workerCores),
      server: mean((s) => s.serverCores),
      postgres: mean((s) => s.postgresCores),
      bench: mean((s) => s.benchCores),
      rest: mean((s) => Math.max(0, s.machineCores - s.workerCores - s.serverCores - s.postgresCores - s.benchCores)),
    },
    submittedPerS: round(((end?.waiting ?? 0) + (end?.completed ?? 0) + (end?.closedNotCompleted ?? 0)) / seconds),
    startedPerS: round((end?.started ?? 0) / seconds),
    backlogAtEnd: end?.notYetSubmitted ?? 0,
    workerRssMbPer10kWaiting: grown === null ? null : round(grown * 10_000),
  };
}

export function formatSample(s: MoonshotSample): string {
  return (
    `${s.atS} s: ${s.started} started (p95 ${s.startP95Ms} ms), ${s.waiting} waiting, ${s.notYetSubmitted} not yet ` +
    `submitted, ${s.completed} completed; cores: workers ${s.workerCores}, server ${s.serverCores}, ` +
    `PostgreSQL ${s.postgresCores}, this bench ${s.benchCores}, machine ${s.machineCores}; worker RSS ${s.workerRssMb.join(' + ')} MB`
  );
}

export function formatMoonshotSummary(r: MoonshotResult): string {
  const rows = r.timeline.map((s) => [
    String(s.atS),
    String(s.started),
    String(s.waiting),
    String(s.notYetSubmitted),
    String(s.completed),
    String(s.startP95Ms),
    s.workerRssMb.join(' + '),
    String(s.serverRssMb),
    `${s.workerCores} / ${s.serverCores} / ${s.postgresCores} / ${s.benchCores} / ${s.machineCores}`,
    String(s.postgresMb),
    String(s.serverRequestsPerS),
  ]);
  return [
    formatTable(
      [
        's',
        'started',
        'waiting',
        'not yet submitted',
        'completed',
        'start p95 ms',
        'worker RSS MB',
        'server RSS MB',
        'cores: workers / server / PostgreSQL / bench / machine',
        'PostgreSQL MB',
        'server req/s',
      ],
      rows,
    ),
    `stopped by: ${r.stoppedBy}; starts a second reached ${r.startsPerSecondReached} (asked ${r.options.startsPerSecond}); ` +
      `peak waiting ${r.peakWaiting}; paid ${r.paid}, paid twice ${r.paidTwice}`,
    formatLimits(r.limits),
  ].join('\n');
}

function formatLimits(l: MoonshotLimits): string {
  const c = l.meanCores;
  return (
    `machine at 90 % or more of its cores in ${l.saturatedMinutes} of ${l.minutes} minutes; cores then: workers ${c.workers}, ` +
    `server ${c.server}, PostgreSQL ${c.postgres}, this bench ${c.bench}, the rest (emulator, system) ${c.rest}\n` +
    `the platform took ${l.submittedPerS} generations a second against ${l.startedPerS} starts; ` +
    `${l.backlogAtEnd} started but not yet submitted at the end; workers' RSS grew ` +
    `${l.workerRssMbPer10kWaiting ?? 'n/a'} MB per 10,000 more waiting`
  );
}
