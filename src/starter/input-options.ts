// The flags a workflow's input is made of, shared by `start` and `schedule create` (whose runs are
// budgetGatedJobs built from the same flags). buildWorkflowInput turns them into the input.
import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `onInsufficient`: the default the command applies (a schedule's runs skip rather than fail). */
export function addInputOptions(
  command: Command,
  defaults: { onInsufficient: string } = { onInsufficient: 'fail' },
): Command {
  return command
    .option('--input <json>', 'the whole input as JSON')
    .option('--input-file <path>', 'the whole input from a JSON file')
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
    .option('--model <name>', 'media: any model of the registry (`models` lists them), with --body or --prompt')
    .option('--body <request.json>', "media: the model's request body, from a JSON file (with --model)")
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
    .option(
      '--on-insufficient <what>',
      `budgetGatedJob: fail, wait or skip without enough budget (default ${defaults.onInsufficient})`,
    )
    .option('--budget-wait-seconds <n>', 'budgetGatedJob: how long to wait for budget (3600)')
    .option('--budget-wait-then <what>', 'budgetGatedJob: fail (default) or skip when the wait times out')
    .option('--gate-question <q>', 'budgetGatedJob: a question about the content, asked before submitting')
    .option('--gate-threshold <p>', 'budgetGatedJob: the least probability of the passing option, 0 to 1')
    .option('--gate-pass-option <o>', 'budgetGatedJob: the option that lets the job through (default the first)')
    .option('--gate-kind <kind>', 'budgetGatedJob: the gate question kind (yes_no)')
    .option('--gate-options <a,b>', 'budgetGatedJob: the gate question options')
    .option('--member <id>', 'autoRenew: the member whose instances are renewed and whose budget pays')
    .option('--before <duration>', 'autoRenew: renew what expires within this (72h, 3d …)')
    .option('--cost-per-month <n>', 'autoRenew: one instance-month in 1/10000 USD (default: the worker price table)')
    .option('--name <name>', 'createInstance: the instance name (no live instance may have it)')
    .option('--product-id <id>', 'createInstance: the GPU product')
    .option('--gpus <n>', 'createInstance: GPUs (1)')
    .option('--billing-mode <mode>', 'createInstance: subscription (with --months) or payAsYouGo')
    .option('--image-url <url>', 'createInstance: the container image')
    .option('--template-id <id>', 'createInstance: a template to take the image from')
    .option('--region-id <id>', 'createInstance: the region');
}
