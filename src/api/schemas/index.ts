import type { z } from 'zod';
import { WorkflowType, type WorkflowTypeName } from '../names';
import { EvaluateDecisionInput, EvaluateDecisionResult } from './decision';
import { BatchJobInput, BatchJobResult } from './batch';
import { BillingReportInput, BillingReportResult } from './billing';
import { BudgetGatedJobInput, BudgetGatedJobResult, BudgetLedgerInput, BudgetLedgerState } from './budget';
import { MediaGenerationInput, MediaGenerationResult } from './media';
import { RenewInstanceInput, RenewInstanceResult, RestartInstanceInput, RestartInstanceResult } from './instances';
import { AutoRenewInput, AutoRenewResult } from './auto-renew';
import {
  CreateInstanceInput,
  CreateInstanceResult,
  DeleteInstanceInput,
  DeleteInstanceResult,
  StartInstanceInput,
  StartInstanceResult,
  StopInstanceInput,
  StopInstanceResult,
} from './instance-lifecycle';

export * from './decision';
export * from './instances';
export * from './instance-lifecycle';
export * from './auto-renew';
export * from './media';
export * from './batch';
export * from './billing';
export * from './budget';
export * from './status';

/** Each workflow type's input and result schema: the source of the published JSON Schemas. */
export const WorkflowSchemas = {
  [WorkflowType.renewInstance]: { input: RenewInstanceInput, result: RenewInstanceResult },
  [WorkflowType.restartInstance]: { input: RestartInstanceInput, result: RestartInstanceResult },
  [WorkflowType.evaluateDecision]: { input: EvaluateDecisionInput, result: EvaluateDecisionResult },
  [WorkflowType.mediaGeneration]: { input: MediaGenerationInput, result: MediaGenerationResult },
  [WorkflowType.batchJob]: { input: BatchJobInput, result: BatchJobResult },
  [WorkflowType.billingReport]: { input: BillingReportInput, result: BillingReportResult },
  [WorkflowType.budgetGatedJob]: { input: BudgetGatedJobInput, result: BudgetGatedJobResult },
  // The ledger never completes on its own; its "result" is the state it would end with.
  [WorkflowType.budgetLedger]: { input: BudgetLedgerInput, result: BudgetLedgerState },
  [WorkflowType.autoRenew]: { input: AutoRenewInput, result: AutoRenewResult },
  [WorkflowType.createInstance]: { input: CreateInstanceInput, result: CreateInstanceResult },
  [WorkflowType.startInstance]: { input: StartInstanceInput, result: StartInstanceResult },
  [WorkflowType.stopInstance]: { input: StopInstanceInput, result: StopInstanceResult },
  [WorkflowType.deleteInstance]: { input: DeleteInstanceInput, result: DeleteInstanceResult },
} as const satisfies Record<WorkflowTypeName, { input: z.ZodType; result: z.ZodType }>;
