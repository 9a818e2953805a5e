// Builds a workflow's input from `--input` JSON, `--input-file`, or the per-workflow flags, and
// checks it with the same schema the workflow uses, so a typo fails before anything starts.
import { readFileSync } from 'node:fs';
import { WORKFLOW_TYPES, WorkflowSchemas, type WorkflowTypeName } from '../api';
import { describeZodError, formatIssues } from '../platform/validation';
import { CliError, ExitCode } from './exit-codes';

export interface InputFlags {
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
}

/** Which flags make up each workflow's input. */
const FLAG_INPUTS: Record<WorkflowTypeName, (f: InputFlags) => Record<string, unknown>> = {
  renewInstance: (f) => ({ instanceId: f.instanceId, months: num(f.months, '--months') }),
  restartInstance: (f) => ({ instanceId: f.instanceId, timeoutSeconds: num(f.timeoutSeconds, '--timeout-seconds') }),
  evaluateDecision: (f) => ({
    state: f.image?.length ? [...(f.state ? [f.state] : []), ...f.image.map((image) => ({ image }))] : f.state,
    questions: (f.question ?? []).map((question) => ({
      kind: f.kind ?? (f.options ? 'choice' : 'yes_no'),
      question,
      options: f.options?.split(',').map((o) => o.trim()),
    })),
    thinking: f.thinking,
  }),
};

export const FLAG_HELP: Record<WorkflowTypeName, string> = {
  renewInstance: '--instance-id ID --months N',
  restartInstance: '--instance-id ID [--timeout-seconds N]',
  evaluateDecision:
    '--state TEXT [--image URL]... --question Q [--question Q]... [--kind K] [--options a,b,c] [--thinking]',
};

function num(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new CliError(`${flag} must be a number, not "${value}"`, ExitCode.Usage);
  return n;
}

export function assertWorkflowType(type: string): WorkflowTypeName {
  if (!(WORKFLOW_TYPES as readonly string[]).includes(type)) {
    throw new CliError(`Unknown workflow "${type}". Known workflows: ${WORKFLOW_TYPES.join(', ')}.`, ExitCode.Usage);
  }
  return type as WorkflowTypeName;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${where} is not valid JSON: ${(err as Error).message}`, ExitCode.Usage);
  }
}

/** The workflow input as it will be sent (defaults are left to the workflow), after checking it. */
export function buildWorkflowInput(type: WorkflowTypeName, flags: InputFlags): unknown {
  let input: unknown;
  if (flags.input !== undefined) input = parseJson(flags.input, '--input');
  else if (flags.inputFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.inputFile, 'utf8');
    } catch (err) {
      throw new CliError(`Cannot read --input-file: ${(err as Error).message}`, ExitCode.Usage);
    }
    input = parseJson(text, `--input-file ${flags.inputFile}`);
  } else {
    input = JSON.parse(JSON.stringify(FLAG_INPUTS[type](flags))) as unknown; // drops undefined fields
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
