// Which workflow types make paid platform calls, themselves or through the children they start, and what each pays
// for: a new run of one of them may be charged again (the starter's `incident rerun-failed` reads this list).
import type { WorkflowTypeName } from '@platform-ops/client';

export const PAID_WORKFLOW_TYPES = {
  mediaGeneration: 'submits a generation',
  batchJob: 'creates an LLM batch',
  evaluateDecision: 'asks the decision evaluation',
  renewInstance: 'renews a GPU instance',
  createInstance: 'creates a GPU instance',
  budgetGatedJob: 'runs a paid job as its child, after a paid gate question if it has one',
  autoRenew: 'renews GPU instances through budget-gated jobs',
  serverlessEndpoint: 'creates a serverless endpoint, whose workers bill while they run',
} as const satisfies Partial<Record<WorkflowTypeName, string>>;

export const paidFor = (type: string): string | undefined =>
  Object.hasOwn(PAID_WORKFLOW_TYPES, type) ? PAID_WORKFLOW_TYPES[type as keyof typeof PAID_WORKFLOW_TYPES] : undefined;
