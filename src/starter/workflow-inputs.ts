// Builds a workflow's input from `--input` JSON, `--input-file`, or the per-workflow flags, and
// checks it with the same schema the workflow uses, so a typo fails before anything starts.
import { readFileSync } from 'node:fs';
import { BudgetJob, type BudgetJobType } from '../workflows/budget/contract';
import { MEDIA_OPERATIONS } from '../workflows/media/contract';
import {
  STARTABLE_WORKFLOW_TYPES,
  WORKFLOWS as WorkflowSchemas,
  WorkflowType,
  type WorkflowTypeName,
} from '../workflows/operations';
import { describeZodError, formatIssues } from '../platform/validation';
import { batchEndpoint, batchFileInput } from './batch-file';
import { CliError, ExitCode } from './exit-codes';
import { INSTANCE_FLAG_HELP, instanceFlagInputs, type InstanceFlags } from './instance-inputs';

export interface InputFlags extends InstanceFlags {
  input?: string;
  inputFile?: string;
  instanceId?: string;
  months?: string;
  timeoutSeconds?: string;
  state?: string;
  image?: string[];
  question?: string[];
  kind?: string;
  options?: string;
  thinking?: boolean;
  // mediaGeneration (`image` above is its start image).
  operation?: string;
  model?: string;
  body?: string;
  prompt?: string;
  endImage?: string;
  duration?: string;
  sound?: boolean;
  aspectRatio?: string;
  negativePrompt?: string;
  cfgScale?: string;
  nsfwDetection?: boolean;
  onAmbiguous?: string;
  memberId?: string;
  // batchJob.
  file?: string;
  endpoint?: string;
  inputFileId?: string;
  windowHours?: string;
  graceMinutes?: string;
  // billingReport.
  cycleType?: string;
  from?: string;
  to?: string;
  category?: string;
  productName?: string;
  quotas?: boolean;
  // budgetGatedJob (`memberId` above is the paying member).
  job?: string;
  jobInput?: string;
  cost?: string;
  onInsufficient?: string;
  budgetWaitSeconds?: string;
  budgetWaitThen?: string;
  gateQuestion?: string;
  gateThreshold?: string;
  gatePassOption?: string;
  gateKind?: string;
  gateOptions?: string;
}

/** The workflow types a user starts (the budget ledger is started by the jobs that need it). */
type StartableWorkflowType = Exclude<WorkflowTypeName, typeof WorkflowType.budgetLedger>;

/** Which flags make up each workflow's input. */
const FLAG_INPUTS: Record<StartableWorkflowType, (f: InputFlags) => Record<string, unknown>> = {
  renewInstance: (f) => ({ instanceId: f.instanceId, months: num(f.months, '--months') }),
  restartInstance: (f) => ({ instanceId: f.instanceId, timeoutSeconds: num(f.timeoutSeconds, '--timeout-seconds') }),
  ...instanceFlagInputs(num),
  evaluateDecision: (f) => ({
    state: f.image?.length ? [...(f.state ? [f.state] : []), ...f.image.map((image) => ({ image }))] : f.state,
    questions: (f.question ?? []).map((question) => ({
      kind: f.kind ?? (f.options ? 'choice' : 'yes_no'),
      question,
      options: f.options?.split(',').map((o) => o.trim()),
    })),
    thinking: f.thinking,
  }),
  mediaGeneration: (f) => {
    if (f.model !== undefined || f.operation === 'async') return asyncModelInput(f);
    if (f.body !== undefined) throw new CliError('--body is the body of a --model; give --model too.', ExitCode.Usage);
    const image = startImage(f.image);
    return {
      operation: mediaOperation(f.operation, image),
      // The platform body as is: the schema says which fields the operation allows (aspect ratio is t2v only).
      request: {
        image,
        end_image: f.endImage,
        prompt: f.prompt,
        duration: num(f.duration, '--duration', 'request.duration'),
        sound: f.sound,
        aspect_ratio: f.aspectRatio,
        negative_prompt: f.negativePrompt,
        cfg_scale: num(f.cfgScale, '--cfg-scale', 'request.cfg_scale'),
        extra: f.nsfwDetection ? { enable_nsfw_detection: true } : undefined,
      },
      submission: f.onAmbiguous === undefined ? undefined : { onAmbiguous: f.onAmbiguous },
      memberId: f.memberId,
    };
  },
  batchJob: (f) => {
    const endpoint = batchEndpoint(f.endpoint);
    if ((f.file === undefined) === (f.inputFileId === undefined)) {
      throw new CliError('batchJob needs either --file requests.jsonl or --input-file-id ID.', ExitCode.Usage);
    }
    return {
      endpoint,
      ...(f.file !== undefined ? batchFileInput(f.file, endpoint) : { inputFileId: f.inputFileId }),
      windowHours: num(f.windowHours, '--window-hours', 'windowHours'),
      graceMinutes: num(f.graceMinutes, '--grace-minutes', 'graceMinutes'),
      memberId: f.memberId,
    };
  },
  billingReport: (f) => ({
    cycleType: f.cycleType,
    startTime: unixSeconds(f.from, '--from'),
    endTime: unixSeconds(f.to, '--to'),
    category: f.category,
    productName: f.productName,
    includeQuotas: f.quotas,
  }),
  budgetGatedJob: (f) => {
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
      // The job's input: as JSON, or from the job's own flags (--prompt, --instance-id …).
      job: {
        workflowType,
        input: f.jobInput !== undefined ? parseJson(f.jobInput, '--job-input') : FLAG_INPUTS[workflowType](f),
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
};

/** `--model` with its body: from `--body request.json`, or `{prompt}` from `--prompt`. */
function asyncModelInput(f: InputFlags): Record<string, unknown> {
  if (f.model === undefined)
    throw new CliError('--operation async needs --model <name> (see `models`).', ExitCode.Usage);
  if ((f.body === undefined) === (f.prompt === undefined)) {
    throw new CliError(`--model ${f.model} needs its body: --body request.json, or --prompt TEXT.`, ExitCode.Usage);
  }
  return {
    operation: 'async',
    model: f.model,
    request: f.body !== undefined ? parseJson(readText(f.body, '--body'), `--body ${f.body}`) : { prompt: f.prompt },
    submission: f.onAmbiguous === undefined ? undefined : { onAmbiguous: f.onAmbiguous },
    memberId: f.memberId,
  };
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${flag}: ${(err as Error).message}`, ExitCode.Usage);
  }
}

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

/** A date (2026-02-01, 2026-02-01T12:00:00Z) or Unix seconds, as Unix seconds. */
function unixSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new CliError(`${flag} must be a date like 2026-02-01 or Unix seconds, not "${value}".`, ExitCode.Usage);
  return Math.floor(ms / 1000);
}

export const FLAG_HELP: Record<StartableWorkflowType, string> = {
  renewInstance: '--instance-id ID --months N',
  restartInstance: '--instance-id ID [--timeout-seconds N]',
  ...INSTANCE_FLAG_HELP,
  evaluateDecision:
    '--state TEXT [--image URL]... --question Q [--question Q]... [--kind K] [--options a,b,c] [--thinking]',
  mediaGeneration:
    '--prompt TEXT [--image URL] [--end-image URL] [--operation image-to-video|text-to-video] [--duration N] ' +
    '[--sound] [--aspect-ratio 16:9|9:16|1:1] [--negative-prompt TEXT] [--cfg-scale X] [--nsfw-detection] ' +
    '[--on-ambiguous fail|resubmit] [--member-id ID]; or --model NAME (--body request.json | --prompt TEXT)',
  batchJob:
    '--endpoint /v1/chat/completions|/v1/completions (--file requests.jsonl | --input-file-id ID) ' +
    '[--window-hours N] [--grace-minutes N] [--member-id ID]',
  billingReport:
    '--cycle-type Hour|Day|Week|Month --from 2026-02-01 --to 2026-03-12 [--category C] [--product-name P] [--quotas]',
  budgetGatedJob:
    "--member-id ID --job TYPE (--job-input JSON | the job's own flags) [--cost N] " +
    '[--on-insufficient fail|wait|skip] [--budget-wait-seconds N] [--budget-wait-then fail|skip] ' +
    '[--gate-question Q --gate-threshold P [--gate-pass-option O] [--gate-kind K] [--gate-options a,b]]',
};

/** `field` names where the number goes in the input, so the message matches the schema's wording. */
function num(value: string | undefined, flag: string, field?: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) {
    const where = field ? ` (${field})` : '';
    throw new CliError(`${flag}${where} must be a number, not "${value}".`, ExitCode.Usage);
  }
  return n;
}

/** `--image` is repeatable for evaluateDecision; a video has one start image (the last frame is --end-image). */
function startImage(images: string[] | undefined): string | undefined {
  if (images && images.length > 1) {
    throw new CliError(
      `mediaGeneration takes one start image, but --image was given ${images.length} times; ` +
        'use --end-image for the last frame.',
      ExitCode.Usage,
    );
  }
  return images?.[0];
}

/**
 * Checked here rather than by the schema: `operation` picks the schema's branch, and a wrong one only
 * reads "has an invalid shape". Without --operation, a start image means image-to-video.
 */
function mediaOperation(operation: string | undefined, image: string | undefined): string {
  if (operation === undefined) return image !== undefined ? 'image-to-video' : 'text-to-video';
  // "async" never gets here: it goes with --model (asyncModelInput).
  const detailed = MEDIA_OPERATIONS.filter((o) => o !== 'async');
  if (!(detailed as readonly string[]).includes(operation)) {
    throw new CliError(`--operation must be ${detailed.join(' or ')}, not "${operation}".`, ExitCode.Usage);
  }
  return operation;
}

export function assertWorkflowType(type: string): StartableWorkflowType {
  if (type === WorkflowType.budgetLedger) {
    throw new CliError(
      'budgetLedger is started by the budget-gated jobs that need it; see `budget show <memberId>`.',
      ExitCode.Usage,
    );
  }
  if (!(STARTABLE_WORKFLOW_TYPES as readonly string[]).includes(type)) {
    throw new CliError(
      `Unknown workflow "${type}". Known workflows: ${STARTABLE_WORKFLOW_TYPES.join(', ')}.`,
      ExitCode.Usage,
    );
  }
  return type as StartableWorkflowType;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${where} is not valid JSON: ${(err as Error).message}`, ExitCode.Usage);
  }
}

/**
 * The workflow input as it will be sent (defaults are left to the workflow), after checking it.
 * `defaults` fill the top-level fields the input leaves out, from JSON or flags alike (a schedule's
 * runs skip rather than fail without budget, unless told otherwise).
 */
export function buildWorkflowInput(
  type: StartableWorkflowType,
  flags: InputFlags,
  defaults: Record<string, unknown> = {},
): unknown {
  let input: unknown;
  if (flags.input !== undefined) input = parseJson(flags.input, '--input');
  else if (flags.inputFile !== undefined) {
    input = parseJson(readText(flags.inputFile, '--input-file'), `--input-file ${flags.inputFile}`);
  } else {
    input = JSON.parse(JSON.stringify(FLAG_INPUTS[type](flags))) as unknown; // drops undefined fields
  }
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const fields = input as Record<string, unknown>;
    for (const [field, value] of Object.entries(defaults)) if (!(field in fields)) fields[field] = value;
  }
  const parsed = WorkflowSchemas[type].input.safeParse(input);
  if (!parsed.success) {
    throw new CliError(
      `Invalid ${type} input: ${formatIssues(describeZodError(parsed.error))}. Flags for ${type}: ${FLAG_HELP[type]}`,
      ExitCode.Usage,
    );
  }
  return input;
}
