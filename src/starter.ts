#!/usr/bin/env node
// The starter CLI: `up` runs the local stack (npm start); `start`, `describe`, `cancel` and `list`
// drive workflows. Errors read as sentences, and the exit status says what happened (exit-codes.ts).
import { Command, CommanderError } from 'commander';
import { STARTABLE_WORKFLOW_TYPES } from './api';
import { cancelBatchCommand, cancelCommand, describeCommand, listCommand } from './starter/commands/inspect';
import { startCommand, type StartOptions } from './starter/commands/start';
import { upCommand } from './starter/commands/up';
import { CliError, ExitCode } from './starter/exit-codes';
import { toCliError } from './starter/failures';
import { FLAG_HELP } from './starter/workflow-inputs';

const out = (line: string) => process.stdout.write(`${line}\n`);
const collect = (value: string, previous: string[] = []) => [...previous, value];

export function buildProgram(): Command {
  const program = new Command('platform-ops')
    .description('Durable Temporal workflows for the cloud AI/GPU platform')
    .exitOverride()
    .showHelpAfterError();

  program
    .command('up')
    .description('run the local stack: Temporal dev server + Web UI, emulator, worker')
    .action(() => upCommand(out));

  program
    .command('start')
    .description(
      `start a workflow by name: ${STARTABLE_WORKFLOW_TYPES.join(', ')}\n` +
        Object.entries(FLAG_HELP)
          .map(([t, f]) => `  ${t}: ${f}`)
          .join('\n'),
    )
    .argument('<workflow>', 'workflow type')
    .option('--input <json>', 'the whole input as JSON')
    .option('--input-file <path>', 'the whole input from a JSON file')
    .option('--id <workflowId>', 'business workflow id (default: <workflow>-<random>)')
    .option('--task-queue <name>', 'task queue (default: TEMPORAL_TASK_QUEUE or platform-ops)')
    .option('--wait', 'wait for the result and print it')
    .option('--instance-id <id>', 'GPU instance id')
    .option('--months <n>', 'months to renew')
    .option('--timeout-seconds <n>', 'how long to wait for the instance to run again')
    .option('--state <text>', 'decision content (text)')
    .option('--image <url>', 'decision content image (repeatable); mediaGeneration: the start image', collect)
    .option('--question <q>', 'decision question (repeatable)', collect)
    .option('--kind <kind>', 'decision question kind (default yes_no, or choice with --options)')
    .option('--options <a,b,c>', 'decision options')
    .option('--thinking', 'decision: enable a reasoning round')
    .option('--operation <op>', 'media: image-to-video or text-to-video (default: image-to-video with --image)')
    .option('--prompt <text>', 'media: what the video shows')
    .option('--end-image <url>', 'media: the last frame (image-to-video)')
    .option('--duration <n>', 'media: video length in seconds')
    .option('--sound', 'media: generate sound too')
    .option('--aspect-ratio <ratio>', 'media: 16:9, 9:16 or 1:1 (text-to-video)')
    .option('--negative-prompt <text>', 'media: what the video must not show')
    .option('--cfg-scale <x>', 'media: how closely to follow the prompt, 0 to 1')
    .option('--nsfw-detection', 'media: check the outputs for NSFW content (billed per image)')
    .option('--on-ambiguous <what>', 'media: fail (default) or resubmit when a submit may have created a task')
    .option('--member-id <id>', 'the team member whose budget pays (budgetGatedJob: required)')
    .option('--file <requests.jsonl>', 'batchJob: the batch requests, one JSON line each')
    .option('--endpoint <path>', 'batchJob: /v1/chat/completions or /v1/completions')
    .option('--input-file-id <id>', 'batchJob: an input file already uploaded')
    .option('--window-hours <n>', 'batchJob: the completion window (48)')
    .option('--grace-minutes <n>', 'batchJob: grace after the window before cancelling (15)')
    .option('--cycle-type <Hour|Day|Week|Month>', 'billingReport: the bill cycle')
    .option('--from <date>', 'billingReport: start (a date or Unix seconds, from 2026-01-01)')
    .option('--to <date>', 'billingReport: end (a date or Unix seconds)')
    .option('--category <c>', 'billingReport: only this category')
    .option('--product-name <p>', 'billingReport: only products whose name contains this')
    .option('--quotas', 'billingReport: add a snapshot of the quota list')
    .option('--job <type>', 'budgetGatedJob: the job to run (mediaGeneration, batchJob …)')
    .option('--job-input <json>', "budgetGatedJob: the job's input as JSON (else from the job's own flags)")
    .option('--cost <n>', 'budgetGatedJob: the cost in 1/10000 USD (default: the worker price table)')
    .option('--on-insufficient <what>', 'budgetGatedJob: fail (default), wait or skip without enough budget')
    .option('--budget-wait-seconds <n>', 'budgetGatedJob: how long to wait for budget (3600)')
    .option('--budget-wait-then <what>', 'budgetGatedJob: fail (default) or skip when the wait times out')
    .option('--gate-question <q>', 'budgetGatedJob: a question about the content, asked before submitting')
    .option('--gate-threshold <p>', 'budgetGatedJob: the least probability of the passing option, 0 to 1')
    .option('--gate-pass-option <o>', 'budgetGatedJob: the option that lets the job through (default the first)')
    .option('--gate-kind <kind>', 'budgetGatedJob: the gate question kind (yes_no)')
    .option('--gate-options <a,b>', 'budgetGatedJob: the gate question options')
    .action((workflow: string, opts: StartOptions) => startCommand(workflow, opts, out));

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
  return program;
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
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
