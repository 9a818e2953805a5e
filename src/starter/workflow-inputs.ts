// Builds a workflow's input from `--input` JSON, `--input-file`, or the workflow's own flags, and
// checks it with the same schema the workflow uses, so a typo fails before anything starts. Each
// operation declares its flags, how they make its workflow types' inputs and what `npm start` suggests
// trying, in src/workflows/<operation>/starter.ts; they are loaded here by the operations list, and a
// flag several operations declare becomes one option.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describeZodError, formatIssues } from '../platform/validation';
import {
  OPERATION_OF,
  STARTABLE_WORKFLOW_TYPES,
  WORKFLOWS,
  WorkflowType,
  type StartableWorkflowType,
} from '../workflows/operations';
import { CliError, ExitCode } from './exit-codes';

/** The parsed command line, as commander names each option (`memberId` for `--member-id`). */
export interface InputFlags {
  input?: string;
  inputFile?: string;
  [option: string]: string | string[] | boolean | undefined;
}

/** Top-level input fields a command fills when the input leaves them out (a schedule's runs skip without budget). */
export type InputDefaults = Record<string, unknown>;

/** One command-line flag: a value (`--months <n>`), a repeatable value, or a switch (`--sound`). */
export interface Flag {
  /** As commander takes it. */
  flag: string;
  /** A function where the help names the command's default. */
  description: string | ((defaults: InputDefaults) => string);
  /** Each use adds a value (`--question Q --question R`). */
  repeatable?: true;
}

type FlagValue<F extends Flag> = F extends { repeatable: true }
  ? string[]
  : F['flag'] extends `${string}<${string}>`
    ? string
    : boolean;
/** The options an operation reads, typed by its own flags. */
export type FlagsOf<O extends Record<string, Flag>> = { [K in keyof O]?: FlagValue<O[K]> };

export interface WorkflowFlags<F> {
  /** The flags in one line, for `start --help` and a refused input. */
  usage: string;
  /** `inputFromFlags` builds another type's input from the same flags (a budget-gated job's own). */
  input(flags: F, inputFromFlags: (type: StartableWorkflowType) => Record<string, unknown>): Record<string, unknown>;
}

/** What src/workflows/<operation>/starter.ts exports as `starter`. */
export interface OperationStarter<O extends Record<string, Flag> = Record<string, Flag>> {
  /** Keyed by the name commander gives the option. */
  flags: O;
  inputs: Partial<Record<StartableWorkflowType, WorkflowFlags<FlagsOf<O>>>>;
  /** Command lines, after `npm run starter --`, that `npm start` suggests trying. */
  examples?: string[];
}

/** Types an operation's `starter` by its flags. */
export const defineStarter = <const O extends Record<string, Flag>>(s: OperationStarter<O>): OperationStarter<O> => s;

let starters: Record<string, OperationStarter> | undefined;

/** Each operation's starter.ts, by operation. */
export function operationStarters(): Record<string, OperationStarter> {
  starters ??= Object.fromEntries(
    // Every operation that has a workflow type to start (a member's ledger has none).
    [...new Set(STARTABLE_WORKFLOW_TYPES.map((type) => OPERATION_OF[type]))].map((op) => {
      // Loaded by the operation's folder name, so that adding an operation never edits the starter.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(path.join(__dirname, '..', 'workflows', op, 'starter')) as { starter: OperationStarter };
      return [op, module.starter];
    }),
  );
  return starters;
}

type FlagKind = 'a switch' | 'a value' | 'repeatable';
const kindOf = (f: Flag): FlagKind => (f.repeatable ? 'repeatable' : /<.+>/.test(f.flag) ? 'a value' : 'a switch');

interface MergedFlag {
  flag: string;
  kind: FlagKind;
  descriptions: Flag['description'][];
  /** The first operation that declares it. */
  by: string;
}

/** One option per flag, whichever operations declare it; a flag of two kinds cannot be one option, so it throws. */
export function mergeFlags(byOperation: Record<string, OperationStarter>): MergedFlag[] {
  const merged = new Map<string, MergedFlag>();
  for (const [op, { flags }] of Object.entries(byOperation)) {
    for (const [name, f] of Object.entries(flags)) {
      const long = f.flag.split(' ')[0];
      const attribute = long.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
      if (attribute !== name) {
        throw new Error(
          `src/workflows/${op}/starter.ts names ${long} "${name}", but commander reads it as "${attribute}".`,
        );
      }
      const seen = merged.get(name);
      if (seen === undefined) {
        merged.set(name, { flag: f.flag, kind: kindOf(f), descriptions: [f.description], by: op });
      } else if (seen.kind !== kindOf(f)) {
        throw new Error(
          `${long} is ${seen.kind} in src/workflows/${seen.by}/starter.ts but ${kindOf(f)} in ` +
            `src/workflows/${op}/starter.ts: one flag is one option, of one kind.`,
        );
      } else if (!seen.descriptions.includes(f.description)) {
        seen.descriptions.push(f.description);
      }
    }
  }
  return [...merged.values()];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The input flags, shared by `start` and `schedule create` (whose runs are built from the same flags). */
export function addInputOptions(command: Command, defaults: InputDefaults = {}): Command {
  command
    .option('--input <json>', 'the whole input as JSON')
    .option('--input-file <path>', 'the whole input from a JSON file');
  for (const f of mergeFlags(operationStarters())) {
    const description = f.descriptions.map((d) => (typeof d === 'string' ? d : d(defaults))).join('; ');
    if (f.kind === 'repeatable') command.option(f.flag, description, collect);
    else command.option(f.flag, description);
  }
  return command;
}

function workflowFlags(type: StartableWorkflowType): WorkflowFlags<InputFlags> {
  const flags = operationStarters()[OPERATION_OF[type]].inputs[type];
  if (flags === undefined) throw new Error(`src/workflows/${OPERATION_OF[type]}/starter.ts has no inputs.${type}.`);
  return flags;
}

/** A workflow type's flags in one line. */
export const flagUsage = (type: StartableWorkflowType): string => workflowFlags(type).usage;

/** What `npm start` suggests trying, every operation's examples in the list's order. */
export const starterExamples = (): string[] => Object.values(operationStarters()).flatMap((s) => s.examples ?? []);

function inputFromFlags(type: StartableWorkflowType, flags: InputFlags): Record<string, unknown> {
  return workflowFlags(type).input(flags, (other) => inputFromFlags(other, flags));
}

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

/**
 * The workflow input as it will be sent (defaults are left to the workflow), after checking it.
 * `defaults` fill the top-level fields the input leaves out, from JSON or flags alike.
 */
export function buildWorkflowInput(
  type: StartableWorkflowType,
  flags: InputFlags,
  defaults: InputDefaults = {},
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
      `Invalid ${type} input: ${formatIssues(describeZodError(parsed.error))}. Flags for ${type}: ${flagUsage(type)}`,
      ExitCode.Usage,
    );
  }
  return input;
}
