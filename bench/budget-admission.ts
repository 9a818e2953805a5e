// Budget admission benchmark: N budgetGatedJob runs of a 5 s text-to-video started at once for one
// member whose budget covers K of them, on a real dev server, worker and emulator. It reports how many
// were admitted (K, exactly), how many a plain check-then-submit would have let through (all of them,
// since check-budget-by-cost reserves nothing), what the member was charged, and how fast the one
// ledger of the member decides: admission latency from the start of a run, admissions per second.
//
//   npm run bench -- --only=budget-admission [--jobs=100] [--covered=40]
import { randomUUID } from 'node:crypto';
import { budgetLedgerStateQuery, budgetLedgerWorkflowId, WorkflowType } from '../src/api/names';
import { DEV_API_KEY } from '../src/emulator/config';
import type { budgetGatedJob } from '../src/workflows';
import { withBenchStack } from './support/stack';
import { percentile, round } from './support/stats';

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
  makespanS: number;
  passed: boolean;
}

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
    rateLimits: {},
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
                    keepOutputs: false,
                  },
                },
              },
            ],
          });
          const result = await handle.result();
          const decidedAt = Date.parse(result.admission.decidedAt ?? '');
          return { result, latencyMs: decidedAt - startedAt, decidedAt };
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
        admissionP95Ms: Math.round(percentile(latencies, 95)),
        decisionsPerSecond: span > 0 ? round(o.jobs / span, 1) : o.jobs,
        ledgerEvents: history.events?.length ?? 0,
        makespanS: round(makespanMs / 1000),
        // Exactly the covered jobs ran, nothing was overspent, and every reservation was given back.
        passed:
          admitted === o.covered &&
          (member.remaining ?? 0) >= 0 &&
          member.spent === admitted * COST &&
          state.outstanding === 0,
      };
    });
  });
}

export function formatBudgetSummary(r: BudgetBenchResult): string {
  return [
    `${r.admitted} of ${r.options.jobs} admitted (budget ${r.budget} covers ${r.options.covered} at ${r.costPerJob}); ` +
      `check-then-submit would have admitted ${r.naiveAdmitted}`,
    `charged ${r.charged}, ${r.remainingAfter ?? 'no limit'} left; ` +
      `admission latency p50 ${r.admissionP50Ms} ms, p95 ${r.admissionP95Ms} ms; ` +
      `${r.decisionsPerSecond} decisions/s through one ledger (${r.ledgerEvents} events in its current run); ` +
      `makespan ${r.makespanS} s`,
  ].join('\n      ');
}
