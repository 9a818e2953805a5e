// `start budgetGatedJob`'s flags and how they make its input: the job's own input comes from --job-input,
// or from that job's own flags (--prompt, --instance-id …). `schedule create` reads the same flags. Not
// workflow-safe: only the starter loads it (src/starter/workflow-inputs.ts).
import { CliError, ExitCode } from '../../starter/exit-codes';
import { defineStarter, num, parseJson } from '../../starter/workflow-inputs';
import { BudgetJob, type BudgetJobType } from './contract';

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
      input: (f, inputFromFlags) => {
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
            input: f.jobInput !== undefined ? parseJson(f.jobInput, '--job-input') : inputFromFlags(workflowType),
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
