// A workflow's input from --input, --input-file or its operation's flags (docs/starter.md), checked with the
// workflow's own schema so that a typo fails before anything starts.
import type { Command } from 'commander';
import {
  describeZodIssues,
  formatIssues,
  OPERATION_OF,
  type OperationName,
  type PriorityClass,
  STARTABLE_WORKFLOW_TYPES,
  type StartableWorkflowType,
  WORKFLOWS,
  WorkflowType,
} from '@platform-ops/client';
import { starter as autoRenewStarter } from '../operations/autoRenew/starter';
import { starter as batchStarter } from '../operations/batchJob/starter';
import { starter as billingStarter } from '../operations/billingReport/starter';
import { starter as budgetStarter } from '../operations/budgetGatedJob/starter';
import { starter as decisionStarter } from '../operations/evaluateDecision/starter';
import { starter as instancesStarter } from '../operations/instances/starter';
import { starter as mediaStarter } from '../operations/mediaGeneration/starter';
import { CliError, ExitCode } from '../cli/command';
import { parseJson, readText, type Flag, type InputFlags, type OperationStarter } from '../cli/flags';
import type { ProgressView } from '../cli/progress';

/** A member's budget ledger is started by its jobs; an endpoint's run by its `endpoint` commands. */
type StartingOperation = Exclude<OperationName, 'budgetLedger' | 'serverlessEndpoint'>;

const STARTERS: { readonly [O in StartingOperation]: OperationStarter } = {
  mediaGeneration: mediaStarter,
  batchJob: batchStarter,
  instances: instancesStarter,
  evaluateDecision: decisionStarter,
  budgetGatedJob: budgetStarter,
  billingReport: billingStarter,
  autoRenew: autoRenewStarter,
};

export const operationStarters = (): Readonly<Record<string, OperationStarter>> => STARTERS;

/** One option per flag, whichever operations declare it; a flag of two kinds cannot be one option. */
export function mergeFlags(byOperation: Record<string, OperationStarter>) {
  const merged = new Map<
    string,
    { flag: string; kind: string; descriptions: Exclude<Flag, { repeatable: string }>[]; by: string }
  >();
  for (const [op, { flags }] of Object.entries(byOperation)) {
    for (const [flag, help] of Object.entries(flags)) {
      const kind = typeof help === 'object' ? 'repeatable' : /<.+>/.test(flag) ? 'a value' : 'a switch';
      const description = typeof help === 'object' ? help.repeatable : help;
      const long = flag.split(' ')[0];
      const seen = merged.get(long);
      if (seen === undefined) merged.set(long, { flag, kind, descriptions: [description], by: op });
      else if (seen.kind !== kind) {
        throw new Error(
          `${long} is ${seen.kind} in src/operations/${seen.by}/starter.ts but ${kind} in ` +
            `src/operations/${op}/starter.ts: one flag is one option, of one kind.`,
        );
      } else if (!seen.descriptions.includes(description)) seen.descriptions.push(description);
    }
  }
  return [...merged.values()];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Shared by `start` and `schedule create`. */
export function addInputOptions(command: Command, defaults: Record<string, unknown> = {}): Command {
  command
    .option('--input <json>', 'the whole input as JSON')
    .option('--input-file <path>', 'the whole input from a JSON file');
  for (const f of mergeFlags(operationStarters())) {
    const description = f.descriptions.map((d) => (typeof d === 'function' ? d(defaults) : d)).join('; ');
    if (f.kind === 'repeatable') command.option(f.flag, description, collect);
    else command.option(f.flag, description);
  }
  return command;
}

function workflowFlags(type: StartableWorkflowType) {
  const flags = operationStarters()[OPERATION_OF[type]].inputs[type];
  if (flags === undefined) throw new Error(`src/operations/${OPERATION_OF[type]}/starter.ts has no inputs.${type}.`);
  return flags;
}

export const flagUsage = (type: StartableWorkflowType): string => workflowFlags(type).usage;

export const watchOf = (type: StartableWorkflowType): ProgressView<unknown> | undefined =>
  operationStarters()[OPERATION_OF[type]].watch?.[type];

export const starterExamples = (): string[] => Object.values(operationStarters()).flatMap((s) => s.examples ?? []);

const inputFromFlags = (type: StartableWorkflowType, flags: InputFlags): Record<string, unknown> =>
  workflowFlags(type).input(flags, { inputFromFlags });

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

/** The checked input as sent (the workflow applies its own defaults); `defaults` fill top-level fields it lacks. */
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
    input = JSON.parse(JSON.stringify(inputFromFlags(type, flags))) as unknown; // drops undefined fields
  }
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const fields = input as Record<string, unknown>;
    for (const [field, value] of Object.entries(defaults)) if (!(field in fields)) fields[field] = value;
  }
  const parsed = WORKFLOWS[type].input.safeParse(input);
  if (!parsed.success) {
    throw new CliError(
      `Invalid ${type} input: ${formatIssues(describeZodIssues(parsed.error.issues))}. Flags for ${type}: ${flagUsage(type)}`,
      ExitCode.Usage,
    );
  }
  return input;
}

export interface PriorityFlags {
  priority?: string;
  fairnessKey?: string;
  fairnessWeight?: string;
}

/** A run's place in the quotas' queues (docs/fairness.md). */
export function addPriorityOptions(command: Command, defaultClass: PriorityClass = 'interactive'): Command {
  return command
    .option(
      '--priority <class>',
      `interactive, scheduled or bulk: whose paid submits go first (default ${defaultClass})`,
    )
    .option('--fairness-key <key>', "whose fair share of each quota the run takes (default: the input's member)")
    .option('--fairness-weight <n>', "the key's share against the others' (default 1)");
}

export const priorityOf = (opts: PriorityFlags) => ({
  priority: opts.priority as never,
  fairnessKey: opts.fairnessKey,
  fairnessWeight: opts.fairnessWeight === undefined ? undefined : Number(opts.fairnessWeight),
});
