// The fault suite's figures and targets, from what it gathered: each workflow's outcome, the faults'
// windows, the emulator's paid-call counter, the ledger's reservations and the API-key scan. Pure, so
// the rules (which failure a fault justifies, what counts as a duplicate or a leak) are unit-tested.
import { atMost, isTrue, type Check } from '../support/checks';

export interface FaultWindow {
  name: string;
  /** Real epoch ms the fault began and ended. */
  from: number;
  to: number;
  /** Non-retryable failure types this fault can justify (a call that may have been carried out unheard). */
  justifies: readonly string[];
  /** Failures the fault causes on purpose, by type (a scenario's scripted refusal): at most that many are justified. */
  allowances?: Readonly<Record<string, number>>;
  /**
   * Paid routes whose answer dies with the worker and that the platform cannot look up again (a
   * synchronous evaluation): one call answered just as this fault struck, and asked again after it,
   * is a justified duplicate. The fault must strike at `from`.
   */
  losesAnswersOf?: readonly string[];
}

export interface Outcome {
  workflowId: string;
  type: string;
  /** The fault whose wave started it. */
  wave: string;
  /** The server's status (COMPLETED, FAILED, RUNNING …); absent when the start failed. */
  status?: string;
  /** The first application failure type in the failure's causes, or the failure's kind. */
  failureType?: string;
  /** The server's start and close times (real epoch ms). */
  startedAt: number;
  closedAt?: number;
  /** Of a run still open at the end: the step it was at (its status search attribute), which says why. */
  stillAt?: string;
}

export interface PaidCounter {
  byRoute: Record<string, Record<string, number>>;
  /** When each answer of a subject carried out more than once was made (epoch ms). */
  repeatedAt?: Record<string, Record<string, number[]>>;
}

export interface Reservation {
  reservationId: string;
  holderWorkflowId: string;
}

export interface ChaosInput {
  outcomes: Outcome[];
  faults: FaultWindow[];
  paid: PaidCounter;
  /** Reservations the member's ledger holds once everything has ended; null when it did not answer. */
  reservations: Reservation[] | null;
  /** Occurrences of the API key per place searched (histories, each log, artifacts). */
  keyOccurrences: Record<string, number>;
  elapsedS: number;
}

export interface ChaosTargets {
  /** Workflows open during each fault, at least (every type among them). */
  minInFlight: number;
  maxElapsedS: number;
}

type ByType = Record<string, number>;

export interface ChaosFigures {
  started: { total: number; byType: ByType };
  startFailures: number;
  completed: { total: number; byType: ByType };
  /** Type (and the fault whose wave it was) → failure type → workflows. */
  failed: { total: number; byType: Record<string, ByType>; byWave: Record<string, ByType> };
  /** Failures no fault the workflow lived through justifies, with a few workflow ids. */
  unjustifiedFailures: { total: number; byType: Record<string, ByType>; examples: string[] };
  /** Still running at the end, by type and by the wave that started them, with a few and the step each was at. */
  unfinished: { total: number; byType: ByType; byWave: ByType; examples: string[] };
  /**
   * Paid calls carried out more than once for one subject (instance, prompt, question, batch), but
   * for those a fault justifies (`justified`: an answer lost with a killed worker).
   */
  duplicatePaidSubmissions: {
    total: number;
    byRoute: ByType;
    examples: string[];
    justified: { total: number; examples: string[] };
  };
  /** Reservations still held by a job that has ended; null when the ledger could not be read. */
  leakedReservations: { total: number | null; examples: string[] };
  keyOccurrences: { total: number; bySource: Record<string, number> };
  faults: Array<{
    name: string;
    seconds: number;
    inFlight: number;
    inFlightByType: ByType;
    justifies: readonly string[];
    allowances: Readonly<Record<string, number>>;
  }>;
  elapsedS: number;
}

const EXAMPLES = 5;
const bump = (m: ByType, k: string, n = 1) => (m[k] = (m[k] ?? 0) + n);
const sum = (m: ByType) => Object.values(m).reduce((a, b) => a + b, 0);

/** Whether the workflow was open at some moment of the fault (from its start to its close). */
const livedThrough = (o: Outcome, f: FaultWindow) => o.startedAt <= f.to && (o.closedAt ?? Infinity) >= f.from;

/** Failure types the faults a workflow lived through justify. */
function justifiedFor(o: Outcome, faults: readonly FaultWindow[]): Set<string> {
  return new Set(faults.filter((f) => livedThrough(o, f)).flatMap((f) => f.justifies));
}

/**
 * Whether a failure is justified: by a fault it lived through that justifies its type outright, or
 * else by one that causes that many on purpose and has some left (`left`, consumed as they are used).
 */
function justify(o: Outcome, why: string, faults: readonly FaultWindow[], left: Map<FaultWindow, ByType>): boolean {
  if (justifiedFor(o, faults).has(why)) return true;
  for (const f of faults) {
    if (!livedThrough(o, f) || !f.allowances?.[why]) continue;
    const remaining = left.get(f) ?? { ...f.allowances };
    left.set(f, remaining);
    if ((remaining[why] ?? 0) > 0) {
      remaining[why]--;
      return true;
    }
  }
  return false;
}

/** Workflows of each type open at some moment of the fault. */
function inFlightDuring(f: FaultWindow, outcomes: readonly Outcome[]): ByType {
  const byType: ByType = {};
  for (const o of outcomes) if (o.status !== undefined && livedThrough(o, f)) bump(byType, o.type);
  return byType;
}

/**
 * How close to the kill an answer must have been made to have died with the worker: the worker
 * records an answer within a few ms of receiving it, so one made earlier than this was recorded.
 */
const LOST_ANSWER_BEFORE_MS = 2_000;
/** An answer made this long after the kill still belongs to it: the platform finishes a call it has begun. */
const LOST_ANSWER_AFTER_MS = 1_000;

/** The fault that explains one extra call of `route` for a subject answered at `at`, if any. */
function lostWithWorker(route: string, at: readonly number[], faults: readonly FaultWindow[]): FaultWindow | undefined {
  return faults.find(
    (f) =>
      f.losesAnswersOf?.includes(route) &&
      at.some((t, i) => t >= f.from - LOST_ANSWER_BEFORE_MS && t <= f.from + LOST_ANSWER_AFTER_MS && i < at.length - 1),
  );
}

/**
 * Every subject counted more than once: each extra call is a duplicate, but for one extra call per
 * subject whose earlier answer was made as a fault that loses answers struck (see `losesAnswersOf`).
 */
export function duplicatePaid(
  paid: PaidCounter,
  faults: readonly FaultWindow[] = [],
): ChaosFigures['duplicatePaidSubmissions'] {
  const byRoute: ByType = {};
  const examples: string[] = [];
  const justified = { total: 0, examples: [] as string[] };
  for (const [route, subjects] of Object.entries(paid.byRoute)) {
    for (const [subject, n] of Object.entries(subjects)) {
      if (n <= 1) continue;
      const fault = lostWithWorker(route, paid.repeatedAt?.[route]?.[subject] ?? [], faults);
      const extra = fault ? n - 2 : n - 1;
      if (fault) {
        justified.total++;
        if (justified.examples.length < EXAMPLES)
          justified.examples.push(`${route} ×${n} at ${fault.name}: ${subject}`);
      }
      if (extra === 0) continue;
      bump(byRoute, route, extra);
      if (examples.length < EXAMPLES) examples.push(`${route} ×${n}: ${subject}`);
    }
  }
  return { total: sum(byRoute), byRoute, examples, justified };
}

export function tally(input: ChaosInput): ChaosFigures {
  const started: ByType = {};
  const completed: ByType = {};
  const failed: Record<string, ByType> = {};
  const failedByWave: Record<string, ByType> = {};
  const unjustified: Record<string, ByType> = {};
  const unjustifiedExamples: string[] = [];
  const unfinished: ByType = {};
  const unfinishedByWave: ByType = {};
  const unfinishedExamples: string[] = [];
  let startFailures = 0;
  const open = new Set<string>();
  const allowancesLeft = new Map<FaultWindow, ByType>();
  for (const o of input.outcomes) {
    if (o.status === undefined) {
      startFailures++;
      continue;
    }
    bump(started, o.type);
    if (o.status === 'COMPLETED') bump(completed, o.type);
    else if (o.status === 'RUNNING') {
      open.add(o.workflowId);
      bump(unfinished, o.type);
      bump(unfinishedByWave, o.wave);
      if (unfinishedExamples.length < EXAMPLES)
        unfinishedExamples.push(`${o.workflowId} (wave ${o.wave}, at ${o.stillAt ?? 'no status yet'})`);
    } else {
      const why = o.failureType ?? o.status;
      bump((failed[o.type] ??= {}), why);
      bump((failedByWave[o.wave] ??= {}), why);
      if (!justify(o, why, input.faults, allowancesLeft)) {
        bump((unjustified[o.type] ??= {}), why);
        if (unjustifiedExamples.length < EXAMPLES) unjustifiedExamples.push(`${o.workflowId}: ${why}`);
      }
    }
  }
  const leaked = input.reservations?.filter((r) => !open.has(r.holderWorkflowId));
  const nested = (m: Record<string, ByType>) => Object.values(m).reduce((a, b) => a + sum(b), 0);
  return {
    started: { total: sum(started), byType: started },
    startFailures,
    completed: { total: sum(completed), byType: completed },
    failed: { total: nested(failed), byType: failed, byWave: failedByWave },
    unjustifiedFailures: { total: nested(unjustified), byType: unjustified, examples: unjustifiedExamples },
    unfinished: {
      total: sum(unfinished),
      byType: unfinished,
      byWave: unfinishedByWave,
      examples: unfinishedExamples,
    },
    duplicatePaidSubmissions: duplicatePaid(input.paid, input.faults),
    leakedReservations: {
      total: leaked ? leaked.length : null,
      examples: (leaked ?? []).slice(0, EXAMPLES).map((r) => `${r.reservationId} held by ${r.holderWorkflowId}`),
    },
    keyOccurrences: { total: sum(input.keyOccurrences), bySource: input.keyOccurrences },
    faults: input.faults.map((f) => {
      const byType = inFlightDuring(f, input.outcomes);
      return {
        name: f.name,
        seconds: Math.round((f.to - f.from) / 1000),
        inFlight: sum(byType),
        inFlightByType: byType,
        justifies: f.justifies,
        allowances: f.allowances ?? {},
      };
    }),
    elapsedS: input.elapsedS,
  };
}

/** The suite's targets, each beside its figure; the suite fails when any is missed. */
export function chaosChecks(f: ChaosFigures, targets: ChaosTargets, types: readonly string[]): Check[] {
  const thinnest = f.faults.reduce((min, x) => Math.min(min, x.inFlight), Infinity);
  const missingType = f.faults.find((x) => types.some((t) => !x.inFlightByType[t]));
  return [
    atMost('starts refused', f.startFailures, 0),
    isTrue(
      'workflows in flight during each fault (every type among them)',
      f.faults.length > 0 && thinnest >= targets.minInFlight && !missingType,
      missingType
        ? `${thinnest}; no ${types.find((t) => !missingType.inFlightByType[t])} at ${missingType.name}`
        : thinnest,
      `>= ${targets.minInFlight}`,
    ),
    atMost('workflows not finished', f.unfinished.total, 0),
    atMost('failures no fault justifies', f.unjustifiedFailures.total, 0),
    atMost('duplicate paid submissions', f.duplicatePaidSubmissions.total, 0),
    atMost('leaked budget reservations', f.leakedReservations.total, 0),
    atMost('API-key occurrences in histories, logs and artifacts', f.keyOccurrences.total, 0),
    atMost('suite duration', f.elapsedS, targets.maxElapsedS, ' s'),
  ];
}
