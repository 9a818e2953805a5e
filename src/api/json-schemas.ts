// JSON Schemas of every workflow's input and result, so backends in other languages can start workflows by name.
import { z } from 'zod';
import {
  budgetLedgerWorkflowId,
  DEFAULT_TASK_QUEUE,
  FailureType,
  type Operation,
  OPERATIONS,
  SEARCH_ATTRIBUTE_DEFINITIONS,
  statusQuery,
  WORKFLOW_TYPES,
  WORKFLOWS,
} from '@platform-ops/client';

const names = (kind: 'queries' | 'signals' | 'updates'): string[] =>
  Object.values<Operation>(OPERATIONS).flatMap((op) =>
    Object.values<{ name: string }>(op[kind] ?? {}).map((d) => d.name),
  );

export function workflowJsonSchemas(): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  for (const type of WORKFLOW_TYPES) {
    const { input, result } = WORKFLOWS[type];
    files[`${type}.input.json`] = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
    files[`${type}.result.json`] = z.toJSONSchema(result, { io: 'output', unrepresentable: 'any' });
  }
  files['index.json'] = {
    description: 'How to start the platform-ops workflows from any Temporal client.',
    taskQueue: DEFAULT_TASK_QUEUE,
    workflows: Object.fromEntries(
      WORKFLOW_TYPES.map((t) => [t, { input: `${t}.input.json`, result: `${t}.result.json` }]),
    ),
    queries: [statusQuery.name, ...names('queries')],
    updates: names('updates'),
    signals: names('signals'),
    budgetLedgerWorkflowId: budgetLedgerWorkflowId('<memberId>'),
    searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
    failureTypes: Object.values(FailureType),
  };
  return files;
}
