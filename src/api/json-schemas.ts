// JSON Schemas of every workflow's input and result, generated from the zod schemas, so backends in
// other languages can start workflows by name with plain JSON. `npm run schemas` writes them out.
import { z } from 'zod';
import { FailureType } from './failures';
import {
  batchProgressQuery,
  budgetJobProgressQuery,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  cancelBatchUpdate,
  DEFAULT_TASK_QUEUE,
  mediaProgressQuery,
  recheckBudgetSignal,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
  SEARCH_ATTRIBUTE_DEFINITIONS,
  statusQuery,
  taskCallbackSignal,
  WORKFLOW_TYPES,
} from './names';
import { WorkflowSchemas } from './schemas';

type JsonSchemaFiles = Record<string, unknown>;

/** File name → content: `<type>.input.json`, `<type>.result.json` and an `index.json` of the names. */
export function workflowJsonSchemas(): JsonSchemaFiles {
  const files: JsonSchemaFiles = {};
  for (const type of WORKFLOW_TYPES) {
    const { input, result } = WorkflowSchemas[type];
    files[`${type}.input.json`] = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
    files[`${type}.result.json`] = z.toJSONSchema(result, { io: 'output', unrepresentable: 'any' });
  }
  files['index.json'] = {
    description: 'How to start the platform-ops workflows from any Temporal client.',
    taskQueue: DEFAULT_TASK_QUEUE,
    workflows: Object.fromEntries(
      WORKFLOW_TYPES.map((t) => [t, { input: `${t}.input.json`, result: `${t}.result.json` }]),
    ),
    queries: [
      statusQuery.name,
      mediaProgressQuery.name,
      batchProgressQuery.name,
      budgetJobProgressQuery.name,
      budgetLedgerStateQuery.name,
    ],
    updates: [cancelBatchUpdate.name, reserveBudgetUpdate.name, releaseBudgetUpdate.name],
    signals: [recheckBudgetSignal.name, taskCallbackSignal.name],
    budgetLedgerWorkflowId: budgetLedgerWorkflowId('<memberId>'),
    searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS,
    failureTypes: Object.values(FailureType),
  };
  return files;
}
