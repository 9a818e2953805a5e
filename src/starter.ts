#!/usr/bin/env node
// The starter CLI: `up` runs the local stack (npm start), `emulator` the platform emulator alone;
// `start`, `attach`, `describe`, `cancel` and `list` drive workflows; `schedule` runs budget-gated jobs on
// Temporal Schedules, `budget` works a member's ledger, `quotas` shows the shared pace of paid
// submits. Errors read as sentences, and the exit status says what happened (exit-codes.ts).
import { Command, CommanderError } from 'commander';
import { STARTABLE_WORKFLOW_TYPES } from './workflows/operations';
import { cancelBatchCommand, cancelCommand, describeCommand, listCommand } from './starter/commands/inspect';
import {
  budgetRecheckJobCommand,
  budgetRecheckMemberCommand,
  budgetReleaseCommand,
  budgetShowCommand,
} from './starter/commands/budget';
import {
  scheduleCreateCommand,
  scheduleDeleteCommand,
  scheduleDescribeCommand,
  scheduleListCommand,
  schedulePauseCommand,
  scheduleTriggerCommand,
  SCHEDULE_INPUT_DEFAULTS,
  type ScheduleCreateOptions,
} from './starter/commands/schedule';
import { quotasCommand } from './starter/commands/quotas';
import { addEmulatorCommand } from './starter/commands/emulator';
import { startCommand, type StartOptions } from './starter/commands/start';
import { attachCommand, type AttachOptions } from './starter/commands/attach';
import { modelsCommand } from './starter/commands/models';
import { upCommand } from './starter/commands/up';
import {
  addRegisterSearchAttributesOption,
  type RegisterOption,
  withRegisterOption,
} from './namespace/register-option';
import { CliError, ExitCode } from './starter/exit-codes';
import { toCliError } from './starter/failures';
import { OVERLAP_NAMES } from './starter/schedule-options';
import { addInputOptions, flagUsage } from './starter/workflow-inputs';

const out = (line: string) => process.stdout.write(`${line}\n`);

export function buildProgram(): Command {
  const program = new Command('platform-ops')
    .description('Durable Temporal workflows for the cloud AI/GPU platform')
    .exitOverride()
    .showHelpAfterError();

  addRegisterSearchAttributesOption(
    program.command('up').description('run the local stack: Temporal dev server + Web UI, emulator, worker'),
  ).action((opts: RegisterOption) => {
    Object.assign(process.env, withRegisterOption({}, opts));
    return upCommand(out);
  });

  addEmulatorCommand(program, out);

  addInputOptions(
    program
      .command('start')
      .description(
        `start a workflow by name: ${STARTABLE_WORKFLOW_TYPES.join(', ')}\n` +
          STARTABLE_WORKFLOW_TYPES.map((t) => `  ${t}: ${flagUsage(t)}`).join('\n'),
      )
      .argument('<workflow>', 'workflow type')
      .option('--id <workflowId>', 'business workflow id (default: <workflow>-<random>)')
      .option(
        '--idempotency-key <key>',
        'start at most once for this key: a repeat answers with the run the key started (workflow id <workflow>:<key>)',
      )
      .option('--retry-failed', 'with --idempotency-key: a key whose run failed may start a new run')
      .option('--task-queue <name>', 'task queue (default: TEMPORAL_TASK_QUEUE or platform-ops)')
      .option('--wait', 'wait for the result and print it'),
  ).action((workflow: string, opts: StartOptions) => startCommand(workflow, opts, out));

  program
    .command('attach')
    .argument('<kind>', 'task (a mediaGeneration) or batch (a batchJob)')
    .argument('<id>', 'the platform task id or batch id, made elsewhere')
    .description(
      'follow an existing task or batch to its end and keep its outputs; nothing paid is sent. ' +
        'Attaching to the same id again answers with the first run (workflow id <workflow>:attach-<kind>:<id>)',
    )
    .option('--member-id <id>', 'who paid, for the search attributes')
    .option('--task-queue <name>', 'task queue (default: TEMPORAL_TASK_QUEUE or platform-ops)')
    .option('--wait', 'wait for the result and print it')
    .action((kind: string, id: string, opts: AttachOptions) => attachCommand(kind, id, opts, out));
  program
    .command('describe')
    .argument('<workflowId>')
    .description('show a workflow: status, search attributes, business status')
    .action((id: string) => describeCommand(id, out));
  program
    .command('cancel')
    .argument('<workflowId>')
    .description('ask a workflow to cancel')
    .action((id: string) => cancelCommand(id, out));
  program
    .command('cancel-batch')
    .argument('<workflowId>')
    .option('--reason <text>', 'why, recorded in the result')
    .description("cancel a batchJob's platform batch (the cancelBatch Update) and print its final state")
    .action((id: string, opts: { reason?: string }) => cancelBatchCommand(id, opts, out));
  program
    .command('list')
    .description('list workflows (newest first)')
    .option('--query <visibility query>', `e.g. "PlatformOperation = 'renewInstance'"`)
    .option('--limit <n>', 'at most this many', '20')
    .action((opts: { query?: string; limit?: string }) => listCommand(opts, out));
  program
    .command('models')
    .description("the model registry: what mediaGeneration's --model takes")
    .action(() => modelsCommand(out));
  addScheduleCommands(program);
  addBudgetCommands(program);
  addQuotasCommand(program);
  return program;
}

/** `schedule …`: Temporal Schedules whose runs are budgetGatedJobs. */
function addScheduleCommands(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('Temporal Schedules whose every run is a budgetGatedJob (create, list, describe, pause …)');
  addInputOptions(
    schedule
      .command('create')
      .argument('<scheduleId>')
      .description(
        'create a schedule: --cron or --every, then the budgetGatedJob as `start budgetGatedJob` takes it ' +
          `(--input JSON, or ${flagUsage('budgetGatedJob')}); a run without budget ends Skipped unless --on-insufficient says otherwise. ` +
          `\`schedule create autoRenew ${flagUsage('autoRenew')} [--every 6h]\` renews a member's expiring instances instead`,
      )
      .option('--cron <expr>', 'when to run, as cron (e.g. "0 3 * * MON-FRI", @daily); or --every')
      .option('--every <duration>', 'run every 30s, 5m, 1h …; or --cron')
      .option('--overlap <policy>', `when a run is due while the last one runs: ${OVERLAP_NAMES.join(', ')}`, 'skip')
      .option('--catchup-window <duration>', 'runs missed (Temporal down) by at most this are still started (1 year)')
      .option('--jitter <duration>', 'start each run up to this much later, at random')
      .option('--paused', 'create it paused')
      .option('--note <text>', 'a note on its state (why it is paused …)')
      .option('--task-queue <name>', 'task queue of the runs (default: TEMPORAL_TASK_QUEUE or platform-ops)'),
    SCHEDULE_INPUT_DEFAULTS,
  ).action((id: string, opts: ScheduleCreateOptions) => scheduleCreateCommand(id, opts, out));
  schedule
    .command('list')
    .description('list the schedules: spec, paused, next run, recent runs')
    .action(() => scheduleListCommand(out));
  schedule
    .command('describe')
    .argument('<scheduleId>')
    .description('show a schedule: spec, policies, state, next runs, and how each recent run ended')
    .action((id: string) => scheduleDescribeCommand(id, out));
  schedule
    .command('pause')
    .argument('<scheduleId>')
    .option('--note <text>', 'why')
    .description('stop starting runs (runs already started go on)')
    .action((id: string, opts: { note?: string }) => schedulePauseCommand(id, opts, true, out));
  schedule
    .command('unpause')
    .argument('<scheduleId>')
    .option('--note <text>', 'why')
    .description('start runs again, from the next due time')
    .action((id: string, opts: { note?: string }) => schedulePauseCommand(id, opts, false, out));
  schedule
    .command('trigger')
    .argument('<scheduleId>')
    .option('--overlap <policy>', `this run's overlap policy (default: the schedule's): ${OVERLAP_NAMES.join(', ')}`)
    .description('start a run now, paused or not')
    .action((id: string, opts: { overlap?: string }) => scheduleTriggerCommand(id, opts, out));
  schedule
    .command('delete')
    .argument('<scheduleId>')
    .description('delete a schedule (runs it started go on)')
    .action((id: string) => scheduleDeleteCommand(id, out));
}

/** `quotas`: the platform's quotas of paid submits and the pace the workers share. */
function addQuotasCommand(program: Command): void {
  program
    .command('quotas')
    .description("the platform's quotas of paid submits and the pace all workers share for each (docs/rate-limits.md)")
    .action(() => quotasCommand(out));
}

/** `budget …`: a member's budget ledger. */
function addBudgetCommands(program: Command): void {
  const budget = program.command('budget').description("a member's budget ledger: show, recheck, release");
  budget
    .command('show')
    .argument('<memberId>')
    .description('what the ledger holds: outstanding, each reservation and its holder, waiting jobs, totals')
    .action((memberId: string) => budgetShowCommand(memberId, out));
  budget
    .command('recheck')
    .argument('[memberId]', "the member: every job waiting for the member's budget re-checks")
    .option('--workflow <id>', 'instead: this one budgetGatedJob re-checks')
    .description('have waiting jobs re-check the budget now (after a top-up)')
    .action((memberId: string | undefined, opts: { workflow?: string }) => {
      if ((memberId === undefined) === (opts.workflow === undefined)) {
        throw new CliError('budget recheck takes exactly one of <memberId> and --workflow <id>.', ExitCode.Usage);
      }
      return opts.workflow !== undefined
        ? budgetRecheckJobCommand(opts.workflow, out)
        : budgetRecheckMemberCommand(memberId!, out);
    });
  budget
    .command('release')
    .argument('<memberId>')
    .argument('<reservationId>', 'as `budget show` lists it')
    .option('--reason <text>', 'why, for the ledger')
    .description('give a reservation back to the ledger (when its job cannot)')
    .action((memberId: string, reservationId: string, opts: { reason?: string }) =>
      budgetReleaseCommand(memberId, reservationId, opts, out),
    );
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return ExitCode.Ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed the usage problem (or the help, which is not an error).
      return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    const cliError = err instanceof CliError ? err : toCliError(err);
    process.stderr.write(`${cliError.message}\n`);
    return cliError.exitCode;
  }
}

if (require.main === module) {
  // Piped into `head`, say: once the reader is gone there is nobody to tell, so stop quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
