// Budget admission benchmark: N budgetGatedJob runs of a 5 s text-to-video started at once for one
// member whose budget covers K of them, on a real dev server, worker and emulator. It reports how many
// were admitted (K, exactly), how many a plain check-then-submit would have let through (all of them,
// since check-budget-by-cost reserves nothing), what the member was charged, and how fast the one
// ledger of the member decides: admission latency from the start of a run, admissions per second.
//
//   npm run bench -- --only=budget-admission [--jobs=100] [--covered=40]
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { budgetLedgerStateQuery, budgetLedgerWorkflowId, WorkflowType } from '@platform-ops/client';
import { decodePayloads } from '../src/activities/earlier-runs';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { budgetGatedJob } from '../src/operations/budgetGatedJob/workflows';
import { atMost, formatChecks, isTrue, type Check } from './support/checks';
import {
  activityMoments,
  eventMs,
  phaseFigures,
  workflowMoments,
  type HistoryEvent,
  type Moments,
  type PhaseFigures,
} from './support/history-phases';
import { withBenchStack } from './support/stack';
import { percentile, round } from './support/stats';
import { NO_QUOTAS } from './support/fixtures';

export interface BudgetBenchOptions {
  jobs: number;
  /** How many of the jobs the member's budget covers. */
  covered: number;
}

export interface BudgetBenchResult {
  options: BudgetBenchOptions;
  costPerJob: number;
  budget: number;
  admitted: number;
  refused: number;
  /** How many of N simultaneous check-budget-by-cost calls said "enough" (what check-then-submit admits). */
  naiveAdmitted: number;
  charged: number;
  remainingAfter: number | null;
  admissionP50Ms: number;
  admissionP95Ms: number;
  /** Decisions per second of the member's ledger, over the span from the first to the last decision. */
  decisionsPerSecond: number;
  ledgerEvents: number;
  /** Where the admission latency goes, from the histories. */
  phases: PhaseFigures;
  makespanS: number;
  checks: Check[];
  passed: boolean;
}

/** Issue 10's target for the ledger under a burst. */
export const ADMISSION_P95_TARGET_MS = 3_000;

const MEMBER = 'member-bench';
/** 5 s × 1120: the default price table's and the emulator's price of a 5 s text-to-video. */
const COST = 5_600;

export async function runBudgetAdmissionBench(opts: Partial<BudgetBenchOptions> = {}): Promise<BudgetBenchResult> {
  const o: BudgetBenchOptions = { jobs: opts.jobs ?? 100, covered: opts.covered ?? 40 };
  if (o.covered > o.jobs) throw new Error('--covered must be at most --jobs');
  const log = (msg: string) => process.stderr.write(`[budget-admission] ${msg}\n`);
  const budget = o.covered * COST + COST / 2;
  // No quotas: the benchmark measures admission, not the platform's rate limits.
  const fixtures = {
    ...NO_QUOTAS,
    members: [{ id: MEMBER, name: 'Bench', remaining: budget }],
    apiKeys: [{ key: DEV_API_KEY, id: 'key-bench', name: 'Bench', userId: 'user-bench', memberId: MEMBER }],
  };

  return withBenchStack('budget-admission', fixtures, async ({ admin, platform, client, taskQueue, worker }) => {
    const naive = await Promise.all(
      Array.from({ length: o.jobs }, () => platform.checkMemberBudget({ member_id: MEMBER, cost: COST })),
    );
    const naiveAdmitted = naive.filter((r) => r.enough).length;

    return worker.runUntil(async () => {
      log(`${o.jobs} budget-gated 5 s videos at once, budget for ${o.covered}…`);
      const started = Date.now();
      const runs = await Promise.all(
        Array.from({ length: o.jobs }, async (_, i) => {
          const startedAt = Date.now();
          const handle = await client.workflow.start<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
            taskQueue,
            workflowId: `bench-budget-${i}-${randomUUID().slice(0, 6)}`,
            args: [
              {
                memberId: MEMBER,
                onInsufficient: 'skip',
                job: {
                  workflowType: 'mediaGeneration',
                  // Long enough that every admission is decided while the admitted videos still run.
                  input: {
                    operation: 'text-to-video',
                    request: { prompt: `bench ${i} [emulator:duration=20000]`, duration: 5 },
                    // One generation: its reservation is COST (by default it covers re-generations too).
                    regeneration: { maxRegenerations: 0 },
                    keepOutputs: false,
                  },
                },
              },
            ],
          });
          const result = await handle.result();
          const decidedAt = Date.parse(result.admission.decidedAt ?? '');
          return { workflowId: handle.workflowId, result, latencyMs: decidedAt - startedAt, decidedAt };
        }),
      );
      const makespanMs = Date.now() - started;
      const admitted = runs.filter((r) => r.result.admission.decision === 'admitted').length;
      const decided = runs.map((r) => r.decidedAt).filter(Number.isFinite);
      const span = (Math.max(...decided) - Math.min(...decided)) / 1000;
      const member = (
        await admin<{ members: { id: string; remaining: number | null; spent: number }[] }>('GET', '/members')
      ).members.find((m) => m.id === MEMBER)!;
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(MEMBER));
      const state = await ledger.query(budgetLedgerStateQuery);
      const history = await ledger.fetchHistory();
      const latencies = runs.map((r) => r.latencyMs);
      const phases = await admissionPhases(
        client,
        MEMBER,
        runs.map((r) => ({ workflowId: r.workflowId, reservationId: r.result.admission.reservationId })),
      );
      const admissionP95Ms = Math.round(percentile(latencies, 95));
      const checks: Check[] = [
        isTrue('exactly the covered jobs admitted', admitted === o.covered, admitted, String(o.covered)),
        isTrue(
          'charged exactly the admitted jobs, never overspent',
          (member.remaining ?? 0) >= 0 && member.spent === admitted * COST,
          member.spent,
          String(admitted * COST),
        ),
        isTrue('every reservation given back', state.outstanding === 0, state.outstanding, '0'),
        atMost('admission latency p95', admissionP95Ms, ADMISSION_P95_TARGET_MS, ' ms'),
      ];
      return {
        options: o,
        costPerJob: COST,
        budget,
        admitted,
        refused: o.jobs - admitted,
        naiveAdmitted,
        charged: member.spent,
        remainingAfter: member.remaining,
        admissionP50Ms: Math.round(percentile(latencies, 50)),
        admissionP95Ms,
        decisionsPerSecond: span > 0 ? round(o.jobs / span, 1) : o.jobs,
        ledgerEvents: history.events?.length ?? 0,
        phases,
        makespanS: round(makespanMs / 1000),
        checks,
        passed: checks.every((c) => c.ok),
      };
    });
  });
}

export function formatBudgetSummary(r: BudgetBenchResult): string {
  return `${[
    `${r.admitted} of ${r.options.jobs} admitted (budget ${r.budget} covers ${r.options.covered} at ${r.costPerJob}); ` +
      `check-then-submit would have admitted ${r.naiveAdmitted}`,
    `charged ${r.charged}, ${r.remainingAfter ?? 'no limit'} left; ` +
      `admission latency p50 ${r.admissionP50Ms} ms, p95 ${r.admissionP95Ms} ms; ` +
      `${r.decisionsPerSecond} decisions/s through one ledger (${r.ledgerEvents} events in its current run); ` +
      `makespan ${r.makespanS} s`,
    'where the time goes (p50 / p95 ms): ' +
      Object.entries(r.phases)
        .map(([name, f]) => `${name} ${f.p50} / ${f.p95}`)
        .join('; '),
  ].join('\n      ')}\n${formatChecks(r.checks)}`;
}
// ── Where the time goes ──────────────────────────────────────────────────────
// From the job's and the ledger's histories (server timestamps), per job: start → its first workflow
// task → its reserve activity starts (after pricing, when the price table prices it) → the ledger
// accepts the Update carrying its request → the ledger answers it → the reserve activity ends.

/** The first argument of an Update in a history, decoded as the stack's client decodes (encrypted, src/codec). */
const firstArg = async <T>(
  client: Client,
  payloads: temporal.api.common.v1.IPayloads | null | undefined,
): Promise<T | undefined> => (await decodePayloads(client, payloads))[0] as T | undefined;

/** Every run of a workflow, oldest first (the ledger continues as new). */
async function allRuns(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    events.unshift(history.events ?? []);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return events.flat();
  }
}

/** Per reservationId: when the ledger accepted the Update that carried it, and when it answered. */
async function ledgerTimes(
  client: Client,
  memberId: string,
): Promise<Map<string, { accepted: number; answered: number }>> {
  const events = await allRuns(client, budgetLedgerWorkflowId(memberId));
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const times = new Map<string, { accepted: number; answered: number }>();
  for (const e of events) {
    const done = e.workflowExecutionUpdateCompletedEventAttributes;
    if (!done) continue;
    const accepted = byId.get(Number(done.acceptedEventId));
    const input = accepted?.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    // One request per reserveBudget Update, several per reserveBudgetBatch.
    const ids =
      input?.name === 'reserveBudget'
        ? [(await firstArg<{ reservationId: string }>(client, input.args))?.reservationId]
        : input?.name === 'reserveBudgetBatch'
          ? ((await firstArg<{ requests: { reservationId: string }[] }>(client, input.args))?.requests.map(
              (r) => r.reservationId,
            ) ?? [])
          : [];
    for (const id of ids) if (id) times.set(id, { accepted: eventMs(accepted), answered: eventMs(e) });
  }
  return times;
}

/** When the job started and first ran, and when its reserve activity started and ended. */
async function jobTimes(client: Client, workflowId: string): Promise<Moments> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const reserve = activityMoments(events, 'reserveMemberBudget');
  return { ...workflowMoments(events), reserveStarted: reserve.started, reserveEnded: reserve.ended };
}

async function admissionPhases(
  client: Client,
  memberId: string,
  jobs: { workflowId: string; reservationId: string }[],
): Promise<PhaseFigures> {
  const ledger = await ledgerTimes(client, memberId);
  const rows = await Promise.all(
    jobs.map(async ({ workflowId, reservationId }) => ({
      job: await jobTimes(client, workflowId),
      ledger: ledger.get(reservationId),
    })),
  );
  return phaseFigures(
    rows.map(({ job, ledger: l }) => ({ ...job, accepted: l?.accepted, answered: l?.answered })),
    {
      'start → first workflow task': ['started', 'firstTask'],
      'first task → reserve activity starts': ['firstTask', 'reserveStarted'],
      'reserve activity → Update accepted': ['reserveStarted', 'accepted'],
      'accepted → answered': ['accepted', 'answered'],
      'answered → activity ends': ['answered', 'reserveEnded'],
    },
  );
}
