import { CliError, ExitCode } from '../../cli/command';
import { defineView, formatSeconds } from '../../cli/progress';
import { defineStarter, num, parseJson } from '../../cli/flags';
import { formatAmount } from '../../platform/money';
import {
  BudgetGatedJobResult,
  BudgetJob,
  budgetJobProgressQuery,
  type BudgetJobProgress,
  type BudgetJobType,
} from '@platform-ops/client';

export const starter = defineStarter({
  flags: {
    '--member-id <id>': 'budgetGatedJob: required',
    '--job <type>': 'budgetGatedJob: the job to run (mediaGeneration, batchJob …)',
    '--job-input <json>': "budgetGatedJob: the job's input as JSON (else from the job's own flags)",
    '--cost <n>': 'budgetGatedJob: the cost in 1/10000 USD (default: the worker price table)',
    '--on-insufficient <what>': (defaults) =>
      `budgetGatedJob: fail, wait or skip without enough budget (default ${(defaults.onInsufficient as string | undefined) ?? 'fail'})`,
    '--budget-wait-seconds <n>': 'budgetGatedJob: how long to wait for budget (3600)',
    '--budget-wait-then <what>': 'budgetGatedJob: fail (default) or skip when the wait times out',
    '--gate-question <q>': 'budgetGatedJob: a question about the content, asked before submitting',
    '--gate-threshold <p>': 'budgetGatedJob: the least probability of the passing option, 0 to 1',
    '--gate-pass-option <o>': 'budgetGatedJob: the option that lets the job through (default the first)',
    '--gate-kind <kind>': 'budgetGatedJob: the gate question kind (yes_no)',
    '--gate-options <a,b>': 'budgetGatedJob: the gate question options',
  },
  inputs: {
    budgetGatedJob: {
      usage:
        "--member-id ID --job TYPE (--job-input JSON | the job's own flags) [--cost N] " +
        '[--on-insufficient fail|wait|skip] [--budget-wait-seconds N] [--budget-wait-then fail|skip] ' +
        '[--gate-question Q --gate-threshold P [--gate-pass-option O] [--gate-kind K] [--gate-options a,b]]',
      input: (f, { inputFromFlags }) => {
        const workflowType = budgetJobType(f.job);
        const waitTimeout = num(f.budgetWaitSeconds, '--budget-wait-seconds', 'wait.timeoutSeconds');
        return {
          memberId: f.memberId,
          cost: num(f.cost, '--cost', 'cost'),
          onInsufficient: f.onInsufficient,
          wait:
            waitTimeout !== undefined || f.budgetWaitThen !== undefined
              ? { timeoutSeconds: waitTimeout, onTimeout: f.budgetWaitThen }
              : undefined,
          job: {
            workflowType,
            input: f.jobInput !== undefined ? parseJson(f.jobInput, '--job-input') : inputFromFlags(workflowType, f),
          },
          gate:
            f.gateQuestion === undefined
              ? undefined
              : {
                  question: f.gateQuestion,
                  threshold: num(f.gateThreshold, '--gate-threshold', 'gate.threshold'),
                  passOption: f.gatePassOption,
                  kind: f.gateKind,
                  options: f.gateOptions?.split(',').map((o) => o.trim()),
                },
        };
      },
    },
  },
  watch: {
    budgetGatedJob: defineView({
      query: budgetJobProgressQuery,
      render: renderBudgetJobProgress,
      changeKey: (p) => `${p.status}|${p.checks}|${p.childWorkflowId ?? ''}`,
      summary: (result) => [renderBudgetJobSummary(result)].filter((line) => line !== undefined),
    }),
  },
  examples: [
    'start budgetGatedJob --member-id member-demo --job mediaGeneration --prompt "a lighthouse" --gate-question "Is this safe to publish?" --gate-threshold 0.5 --wait',
    'budget show member-demo',
  ],
});

const BUDGET_JOB_TYPES = BudgetJob.options.map((o) => o.shape.workflowType.value);

function budgetJobType(job: string | undefined): BudgetJobType {
  if (job === undefined || !(BUDGET_JOB_TYPES as readonly string[]).includes(job)) {
    throw new CliError(
      `budgetGatedJob needs --job with the job to run: one of ${BUDGET_JOB_TYPES.join(', ')}` +
        (job === undefined ? '.' : `, not "${job}".`),
      ExitCode.Usage,
    );
  }
  return job as BudgetJobType;
}

/** E.g. `WAITING_FOR_BUDGET  cost 1000 (0.1000 USD)  checks 3  others hold 5600  wait ends in 9m58s` (worker clock). */
export function renderBudgetJobProgress(p: BudgetJobProgress, now: number): string {
  const parts: string[] = [p.outcome ?? p.status];
  if (p.cost !== undefined) parts.push(`cost ${formatAmount(p.cost)}`);
  if (p.gateCost) parts.push(`gate ${formatAmount(p.gateCost)}`);
  parts.push(`checks ${p.checks}`);
  const waiting = p.status === 'WAITING_FOR_BUDGET';
  if (waiting && p.lastRefusal && p.lastRefusal.outstanding > 0) parts.push(`others hold ${p.lastRefusal.outstanding}`);
  const deadline = p.waitDeadline ? Date.parse(p.waitDeadline) : NaN;
  if (waiting && Number.isFinite(deadline)) parts.push(`wait ends in ${formatSeconds((deadline - now) / 1000)}`);
  if (p.childWorkflowId) parts.push(`job ${p.childWorkflowId}`);
  return parts.join('  ');
}

export function renderBudgetJobSummary(result: unknown): string | undefined {
  const parsed = BudgetGatedJobResult.safeParse(result);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  const job = r.job ? `, job ${r.job.workflowType} as workflow ${r.job.workflowId}` : '';
  return `${r.outcome}: reserved ${formatAmount(r.admission.reserved)}${job}.${r.reason ? ` ${r.reason}` : ''}`;
}
