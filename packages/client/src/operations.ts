// The service's operations, each by its contract here (contracts/) and its folder under src/operations. The worker, the client
// package, the starter, the JSON Schemas, the sandbox preload and the docs table all read this list; the activity
// factories (src/operations/activities.ts) and the starters (src/starter/workflow-inputs.ts) are listed by its names.
import type { z } from 'zod';
import type { Operation, WorkflowContract } from './contract';
import * as autoRenew from './contracts/autoRenew';
import * as batchJob from './contracts/batchJob';
import * as billingReport from './contracts/billingReport';
import * as budgetGatedJob from './contracts/budgetGatedJob';
import * as budgetLedger from './contracts/budgetLedger';
import * as evaluateDecision from './contracts/evaluateDecision';
import * as instances from './contracts/instances';
import * as mediaGeneration from './contracts/mediaGeneration';

/** Each operation's contract module, which exports the operation under the same name. */
export const CONTRACTS = {
  mediaGeneration,
  batchJob,
  instances,
  evaluateDecision,
  budgetGatedJob,
  budgetLedger,
  billingReport,
  autoRenew,
};

type Operations = {
  [K in keyof typeof CONTRACTS]: (typeof CONTRACTS)[K] extends Record<K, infer O extends Operation> ? O : never;
};
export const OPERATIONS = Object.fromEntries(
  Object.entries(CONTRACTS).map(([name, module]) => [name, (module as unknown as Record<string, Operation>)[name]]),
) as Operations;
export type OperationName = keyof Operations;
/** Every workflow type, with its contract. */
type Contracts = UnionToIntersection<{ [O in OperationName]: Operations[O]['workflows'] }[OperationName]>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export type WorkflowTypeName = Extract<keyof Contracts, string>;
/** A workflow type's input as a caller gives it, and its result. */
export type InputOf<T extends WorkflowTypeName> = z.input<Contracts[T]['input']>;
export type ResultOf<T extends WorkflowTypeName> = z.output<Contracts[T]['result']>;

export const WORKFLOWS = Object.fromEntries(
  Object.values(OPERATIONS).flatMap((op) => Object.entries(op.workflows as Record<string, WorkflowContract>)),
) as { [T in WorkflowTypeName]: Contracts[T] };

/** Each workflow type's operation (its folder). */
export const OPERATION_OF = Object.fromEntries(
  Object.entries(OPERATIONS).flatMap(([name, op]) => Object.keys(op.workflows).map((type) => [type, name])),
) as Record<WorkflowTypeName, OperationName>;

export const WORKFLOW_TYPES = Object.keys(WORKFLOWS) as WorkflowTypeName[];
/** The workflow types a caller starts: not the `internal` ones (a member's budget ledger). */
export type StartableWorkflowType = {
  [T in WorkflowTypeName]: Contracts[T] extends { internal: true } ? never : T;
}[WorkflowTypeName];
export const STARTABLE_WORKFLOW_TYPES = WORKFLOW_TYPES.filter(
  (t): t is StartableWorkflowType => !(WORKFLOWS[t] as WorkflowContract).internal,
);
/** Type name → itself, for code that names a type without a string literal. */
export const WorkflowType = Object.fromEntries(WORKFLOW_TYPES.map((t) => [t, t])) as {
  readonly [T in WorkflowTypeName]: T;
};

/** The UI shows one line: a longer summary is cut. */
const MAX_SUMMARY = 200;

/** One line for the Web UI's workflow list and the run's "User Metadata": what the run is for. */
export function workflowSummary(type: WorkflowTypeName, parsedInput: unknown): string {
  const parts = (WORKFLOWS[type] as WorkflowContract).summary(parsedInput);
  const line = parts.filter((p): p is string => p !== undefined && p !== '').join(', ');
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}
