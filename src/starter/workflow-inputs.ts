// A workflow's input from --input, --input-file or its operation's flags (docs/starter.md), checked with the
// workflow's own schema so that a typo fails before anything starts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { PriorityClass } from '../api/contract';
import { describeZodIssues, formatIssues } from '../platform/validation';
import {
  OPERATION_OF,
  STARTABLE_WORKFLOW_TYPES,
  WORKFLOWS,
  WorkflowType,
  type StartableWorkflowType,
} from '../workflows/operations';
import { CliError, ExitCode } from './cli';
import type { ProgressView } from './progress';

export interface InputFlags {
  input?: string;
  inputFile?: string;
  [option: string]: string | string[] | boolean | undefined;
}

/** A flag's help: a line, a function naming the command's defaults, or `{ repeatable }` when each use adds a value. */
export type Flag = string | ((defaults: Record<string, unknown>) => string) | { repeatable: string };

/** The name commander gives a flag's option: `memberId` for `--member-id <id>`. */
type OptionName<F> = F extends `--${infer N} ${string}` ? Camel<N> : F extends `--${infer N}` ? Camel<N> : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FlagValue<F, H> = H extends { repeatable: string }
  ? string[]
  : F extends `${string}<${string}>`
    ? string
    : boolean;
/** The options an operation reads, typed by its own flags. */
export type FlagsOf<O extends Record<string, Flag>> = { [F in keyof O as OptionName<F>]?: FlagValue<F, O[F]> };

/** What src/workflows/<operation>/starter.ts exports as `starter`. */
export interface OperationStarter<O extends Record<string, Flag> = Record<string, Flag>> {
  flags: O;
  /** Each workflow type's input from the flags, and the flags in one line (`usage`) for `start --help` and errors. */
  inputs: Partial<Record<StartableWorkflowType, { usage: string; input(flags: FlagsOf<O>): Record<string, unknown> }>>;
  /** How `--wait` shows a workflow type's progress and result, where it has a progress query. */
  watch?: Partial<Record<StartableWorkflowType, ProgressView<unknown>>>;
  /** Command lines, after `npm run starter --`, that `npm start` suggests trying. */
  examples?: string[];
}

/** Types an operation's `starter` by its flags. */
export const defineStarter = <const O extends Record<string, Flag>>(s: OperationStarter<O>): OperationStarter<O> => s;

let starters: Record<string, OperationStarter> | undefined;

export function operationStarters(): Record<string, OperationStarter> {
  starters ??= Object.fromEntries(
    // By folder name, so that adding an operation never edits the starter (a member's ledger starts nothing).
    [...new Set(STARTABLE_WORKFLOW_TYPES.map((type) => OPERATION_OF[type]))].map((op) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(path.join(__dirname, '..', 'workflows', op, 'starter')) as { starter: OperationStarter };
      return [op, module.starter];
    }),
  );
  return starters;
}

/** One option per flag, whichever operations declare it; a flag of two kinds cannot be one option, so it throws. */
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
          `${long} is ${seen.kind} in src/workflows/${seen.by}/starter.ts but ${kind} in ` +
            `src/workflows/${op}/starter.ts: one flag is one option, of one kind.`,
        );
      } else if (!seen.descriptions.includes(description)) seen.descriptions.push(description);
    }
  }
  return [...merged.values()];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The input flags, shared by `start` and `schedule create` (whose runs are built from the same flags). */
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
  if (flags === undefined) throw new Error(`src/workflows/${OPERATION_OF[type]}/starter.ts has no inputs.${type}.`);
  return flags;
}

export const flagUsage = (type: StartableWorkflowType): string => workflowFlags(type).usage;

export const watchOf = (type: StartableWorkflowType): ProgressView<unknown> | undefined =>
  operationStarters()[OPERATION_OF[type]].watch?.[type];

export const starterExamples = (): string[] => Object.values(operationStarters()).flatMap((s) => s.examples ?? []);

/** `type`'s input from its flags (a budget-gated job builds its job's input from the same command line). */
export const inputFromFlags = (type: StartableWorkflowType, flags: InputFlags): Record<string, unknown> =>
  workflowFlags(type).input(flags);

/** `field` names where the number goes in the input, so the message matches the schema's wording. */
export function num(value: string | undefined, flag: string, field?: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) {
    const where = field ? ` (${field})` : '';
    throw new CliError(`${flag}${where} must be a number, not "${value}".`, ExitCode.Usage);
  }
  return n;
}

export function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${flag}: ${(err as Error).message}`, ExitCode.Usage);
  }
}

export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${where} is not valid JSON: ${(err as Error).message}`, ExitCode.Usage);
  }
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

/** The start options every start command takes for its place in the quotas' queues (docs/fairness.md). */
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
