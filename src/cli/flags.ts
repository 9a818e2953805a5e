// What an operation's starter (src/operations/<operation>/starter.ts) is made of. A leaf: the operations' starters
// import it, and src/starter/workflow-inputs.ts, which lists them, imports them.
import { readFileSync } from 'node:fs';
import type { StartableWorkflowType } from '@platform-ops/client';
import { CliError, ExitCode } from './command';
import type { ProgressView } from './progress';

export interface InputFlags {
  input?: string;
  inputFile?: string;
  [option: string]: string | string[] | boolean | undefined;
}

/** A flag's help: a line, a function naming the command's defaults, or `{ repeatable }` when each use adds a value. */
export type Flag = string | ((defaults: Record<string, unknown>) => string) | { repeatable: string };

/** `memberId` for `--member-id <id>`, as commander names it. */
type OptionName<F> = F extends `--${infer N} ${string}` ? Camel<N> : F extends `--${infer N}` ? Camel<N> : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FlagValue<F, H> = H extends { repeatable: string }
  ? string[]
  : F extends `${string}<${string}>`
    ? string
    : boolean;
export type FlagsOf<O extends Record<string, Flag>> = { [F in keyof O as OptionName<F>]?: FlagValue<F, O[F]> };

/** A budget-gated job builds its job's input from the same flags. */
interface StarterContext {
  inputFromFlags: (type: StartableWorkflowType, flags: InputFlags) => Record<string, unknown>;
}

export interface OperationStarter<O extends Record<string, Flag> = Record<string, Flag>> {
  flags: O;
  /** Each workflow type's input from the flags, and the flags in one line (`usage`) for `start --help` and errors. */
  inputs: Partial<
    Record<
      StartableWorkflowType,
      { usage: string; input(flags: FlagsOf<O>, starters: StarterContext): Record<string, unknown> }
    >
  >;
  /** How `--wait` shows a workflow type's progress and result. */
  watch?: Partial<Record<StartableWorkflowType, ProgressView<unknown>>>;
  /** Command lines, after `npm run starter --`, that `npm start` suggests trying. */
  examples?: string[];
}

export const defineStarter = <const O extends Record<string, Flag>>(s: OperationStarter<O>): OperationStarter<O> => s;

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
