// The contract of budgetGatedJob: one job run once the member's budget covers it, admitted through the
// member's ledger (../budgetLedger/contract.ts). Money is in 1/10000 USD, as on the platform.
import { z } from 'zod';
import { Amount, defineOperation, member, MemberId, notBelow, query, Resumed, workflow } from '../contract';
import { recheckBudgetSignal } from './budgetLedger';
import { DecisionOption, DecisionOptions, DecisionState } from '../platform/decision';
import { BatchJobRequestInput } from './batchJob';
import { BillingReportInput } from './billingReport';
import { EvaluateDecisionInput } from './evaluateDecision';
import { RenewInstanceInput, RestartInstanceInput } from './instances';
import { MediaGenerationRequestInput } from './mediaGeneration';

/** The child job. mediaGeneration and batchJob take a request: attaching pays nothing, so there is nothing to admit. */
export const BudgetJob = z.discriminatedUnion('workflowType', [
  z.strictObject({ workflowType: z.literal('mediaGeneration'), input: MediaGenerationRequestInput }),
  z.strictObject({ workflowType: z.literal('batchJob'), input: BatchJobRequestInput }),
  z.strictObject({ workflowType: z.literal('evaluateDecision'), input: EvaluateDecisionInput }),
  z.strictObject({ workflowType: z.literal('renewInstance'), input: RenewInstanceInput }),
  z.strictObject({ workflowType: z.literal('restartInstance'), input: RestartInstanceInput }),
  z.strictObject({ workflowType: z.literal('billingReport'), input: BillingReportInput }),
]);
export type BudgetJob = z.input<typeof BudgetJob>;
export type ParsedBudgetJob = z.output<typeof BudgetJob>;
export type BudgetJobType = ParsedBudgetJob['workflowType'];

export const GATE_CONTENT_FROM_JOB: readonly BudgetJobType[] = ['mediaGeneration', 'evaluateDecision'];

export const DecisionGate = z
  .strictObject({
    question: z.string().min(1).max(10_000),
    kind: z.string().min(1).max(64).default('yes_no'),
    options: DecisionOptions.optional(),
    passOption: DecisionOption.optional(),
    threshold: z.number().min(0).max(1),
    state: DecisionState.optional(),
    thinking: z.boolean().optional(),
  })
  .superRefine((gate, ctx) => {
    const options = gate.options ?? (gate.kind === 'yes_no' ? ['yes', 'no'] : undefined);
    if (!options) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `is required when kind is "${gate.kind}"` });
    } else if (gate.passOption !== undefined && !options.includes(gate.passOption)) {
      ctx.addIssue({
        code: 'custom',
        path: ['passOption'],
        message: `must be one of the options (${options.map((o) => JSON.stringify(o)).join(', ')})`,
      });
    }
  });
export type DecisionGate = z.input<typeof DecisionGate>;

export const BudgetWaitOptions = z
  .strictObject({
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(3_600),
    initialIntervalSeconds: z.number().min(1).max(86_400).default(30),
    maxIntervalSeconds: z.number().min(1).max(86_400).default(600),
    onTimeout: z.enum(['fail', 'skip']).default('fail'),
  })
  .refine(...notBelow('maxIntervalSeconds', 'initialIntervalSeconds'));
export type ParsedBudgetWaitOptions = z.output<typeof BudgetWaitOptions>;
export const DEFAULT_BUDGET_WAIT: ParsedBudgetWaitOptions = BudgetWaitOptions.parse({});

export const BudgetGatedJobInput = z
  .strictObject({
    memberId: MemberId,
    /** The job's cost in 1/10000 USD; default: priced from the worker's price table (PLATFORM_PRICES). */
    cost: Amount.optional(),
    onInsufficient: z.enum(['fail', 'wait', 'skip']).default('fail'),
    wait: BudgetWaitOptions.optional(),
    job: BudgetJob,
    gate: DecisionGate.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.wait !== undefined && input.onInsufficient !== 'wait') {
      ctx.addIssue({ code: 'custom', path: ['wait'], message: 'only applies when onInsufficient is "wait"' });
    }
    const jobMember = (input.job.input as { memberId?: string }).memberId;
    if (jobMember !== undefined && jobMember !== input.memberId) {
      ctx.addIssue({
        code: 'custom',
        path: ['job', 'input', 'memberId'],
        message: `must be the job's memberId ("${input.memberId}") or absent`,
      });
    }
    if (input.gate && input.gate.state === undefined && !GATE_CONTENT_FROM_JOB.includes(input.job.workflowType)) {
      ctx.addIssue({
        code: 'custom',
        path: ['gate', 'state'],
        message: `is required for a ${input.job.workflowType} job (only ${GATE_CONTENT_FROM_JOB.join(' and ')} jobs hold content to judge)`,
      });
    }
  })
  .meta({
    title: 'budgetGatedJob input',
    description:
      "Runs one job as a child workflow once the member's budget covers it: the cost plus every reservation " +
      'other jobs of the member hold, checked with the platform through a per-member ledger that serialises ' +
      'admissions. An optional decision gate judges the content first.',
  });
export type BudgetGatedJobInput = z.input<typeof BudgetGatedJobInput>;
export type ParsedBudgetGatedJobInput = z.output<typeof BudgetGatedJobInput>;

export const BUDGET_OUTCOMES = ['Completed', 'Skipped', 'Rejected'] as const;
export type BudgetOutcome = (typeof BUDGET_OUTCOMES)[number];

export const BudgetAdmission = z.object({
  decision: z.enum(['admitted', 'refused']),
  reservationId: z.string(),
  ledgerWorkflowId: z.string(),
  cost: z.number().int(),
  costSource: z.enum(['input', 'priceTable']),
  costBreakdown: z.string().optional(),
  gateCost: z.number().int(),
  reserved: z.number().int(),
  reservedUsd: z.string(),
  outstandingAtCheck: z.number().int(),
  checkedCost: z.number().int(),
  checks: z.number().int(),
  firstCheckedAt: z.string().optional(),
  decidedAt: z.string().optional(),
  waitedSeconds: z.number(),
});
export type BudgetAdmission = z.infer<typeof BudgetAdmission>;

export const GateVerdict = z.object({
  question: z.string(),
  passOption: z.string(),
  threshold: z.number(),
  probability: z.number(),
  probabilities: z.record(z.string(), z.number()),
  choice: z.string().optional(),
  passed: z.boolean(),
  promptTokens: z.number().optional(),
  resumed: Resumed.optional(),
});
export type GateVerdict = z.infer<typeof GateVerdict>;

export const BudgetGatedJobResult = z
  .object({
    outcome: z.enum(BUDGET_OUTCOMES),
    memberId: z.string(),
    reason: z.string().optional(),
    admission: BudgetAdmission,
    gate: GateVerdict.optional(),
    job: z
      .object({ workflowType: z.string(), workflowId: z.string(), result: z.unknown() })
      .optional()
      .describe("the child workflow and its result (that workflow type's own result schema)"),
    released: z.boolean(),
    resumed: z.array(Resumed).optional(),
  })
  .meta({ title: 'budgetGatedJob result' });
export type BudgetGatedJobResult = z.infer<typeof BudgetGatedJobResult>;

export const BUDGET_GATED_JOB_STATUSES = [
  'PRICING',
  'CHECKING_BUDGET',
  'WAITING_FOR_BUDGET',
  'GATING',
  'REJECTED',
  'SKIPPED',
  'RUNNING_JOB',
  'COMPLETED',
  'FAILED',
] as const;
export type BudgetGatedJobStatus = (typeof BUDGET_GATED_JOB_STATUSES)[number];

export interface BudgetJobProgress {
  resumedFrom?: string;
  status: BudgetGatedJobStatus;
  memberId: string;
  onInsufficient: ParsedBudgetGatedJobInput['onInsufficient'];
  cost?: number;
  gateCost?: number;
  reservationId: string;
  checks: number;
  lastRefusal?: { checkedCost: number; outstanding: number; at?: string };
  waitingSince?: string;
  waitDeadline?: string;
  childWorkflowId?: string;
  outcome?: BudgetOutcome;
}

export const budgetGatedJob = defineOperation({
  workflows: {
    budgetGatedJob: workflow(BudgetGatedJobInput, BudgetGatedJobResult, (i) => [
      `budget-gated ${i.job.workflowType}`,
      member(i.memberId),
    ]),
  },
  queries: { budgetJobProgress: query<BudgetJobProgress>('budgetJobProgress') },
  signals: { recheckBudget: recheckBudgetSignal },
});
export const budgetJobProgressQuery = budgetGatedJob.queries.budgetJobProgress;
