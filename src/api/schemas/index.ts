import type { z } from 'zod';
import { WorkflowType, type WorkflowTypeName } from '../names';
import { EvaluateDecisionInput, EvaluateDecisionResult } from './decision';
import { BatchJobInput, BatchJobResult } from './batch';
import { BillingReportInput, BillingReportResult } from './billing';
import { MediaGenerationInput, MediaGenerationResult } from './media';
import { RenewInstanceInput, RenewInstanceResult, RestartInstanceInput, RestartInstanceResult } from './instances';

export * from './decision';
export * from './instances';
export * from './media';
export * from './batch';
export * from './billing';

/** Each workflow type's input and result schema: the source of the published JSON Schemas. */
export const WorkflowSchemas = {
  [WorkflowType.renewInstance]: { input: RenewInstanceInput, result: RenewInstanceResult },
  [WorkflowType.restartInstance]: { input: RestartInstanceInput, result: RestartInstanceResult },
  [WorkflowType.evaluateDecision]: { input: EvaluateDecisionInput, result: EvaluateDecisionResult },
  [WorkflowType.mediaGeneration]: { input: MediaGenerationInput, result: MediaGenerationResult },
  [WorkflowType.batchJob]: { input: BatchJobInput, result: BatchJobResult },
  [WorkflowType.billingReport]: { input: BillingReportInput, result: BillingReportResult },
} as const satisfies Record<WorkflowTypeName, { input: z.ZodType; result: z.ZodType }>;
