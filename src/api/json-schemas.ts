// JSON Schemas of every workflow's input and result, generated from the zod schemas, so backends in
// other languages can start workflows by name with plain JSON. `npm run schemas` writes them out.
import { z } from 'zod';
import { FailureType } from './failures';
import { batchProgressQuery, cancelBatchUpdate } from '../workflows/batch/contract';
import {
  budgetJobProgressQuery,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  recheckBudgetSignal,
  releaseBudgetUpdate,
  reserveBudgetUpdate,
} from '../workflows/budget/contract';
import { DEFAULT_TASK_QUEUE, SEARCH_ATTRIBUTE_DEFINITIONS, statusQuery } from './contract';
import { mediaProgressQuery, taskCallbackSignal } from '../workflows/media/contract';
import { WORKFLOW_TYPES } from '../workflows/operations';
import { WORKFLOWS as WorkflowSchemas } from '../workflows/operations';

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
