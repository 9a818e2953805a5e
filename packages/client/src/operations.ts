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
import * as serverlessEndpoint from './contracts/serverlessEndpoint';

export const CONTRACTS = {
  mediaGeneration,
  batchJob,
  instances,
  evaluateDecision,
  budgetGatedJob,
  budgetLedger,
  billingReport,
  autoRenew,
  serverlessEndpoint,
};

type Operations = {
  [K in keyof typeof CONTRACTS]: (typeof CONTRACTS)[K] extends Record<K, infer O extends Operation> ? O : never;
};
export const OPERATIONS = Object.fromEntries(
  Object.entries(CONTRACTS).map(([name, module]) => [name, (module as unknown as Record<string, Operation>)[name]]),
) as Operations;
export type OperationName = keyof Operations;
type Contracts = UnionToIntersection<{ [O in OperationName]: Operations[O]['workflows'] }[OperationName]>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export type WorkflowTypeName = Extract<keyof Contracts, string>;
export type InputOf<T extends WorkflowTypeName> = z.input<Contracts[T]['input']>;
export type ResultOf<T extends WorkflowTypeName> = z.output<Contracts[T]['result']>;

export const WORKFLOWS = Object.fromEntries(
  Object.values(OPERATIONS).flatMap((op) => Object.entries(op.workflows as Record<string, WorkflowContract>)),
) as { [T in WorkflowTypeName]: Contracts[T] };

export const OPERATION_OF = Object.fromEntries(
  Object.entries(OPERATIONS).flatMap(([name, op]) => Object.keys(op.workflows).map((type) => [type, name])),
) as Record<WorkflowTypeName, OperationName>;

export const WORKFLOW_TYPES = Object.keys(WORKFLOWS) as WorkflowTypeName[];
export type StartableWorkflowType = {
  [T in WorkflowTypeName]: Contracts[T] extends { internal: true } ? never : T;
}[WorkflowTypeName];
export const STARTABLE_WORKFLOW_TYPES = WORKFLOW_TYPES.filter(
  (t): t is StartableWorkflowType => !(WORKFLOWS[t] as WorkflowContract).internal,
);
export const WorkflowType = Object.fromEntries(WORKFLOW_TYPES.map((t) => [t, t])) as {
  readonly [T in WorkflowTypeName]: T;
};

const MAX_SUMMARY = 200;

export function workflowSummary(type: WorkflowTypeName, parsedInput: unknown): string {
  const parts = (WORKFLOWS[type] as WorkflowContract).summary(parsedInput);
  const line = parts.filter((p): p is string => p !== undefined && p !== '').join(', ');
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}
