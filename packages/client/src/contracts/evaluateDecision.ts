import { z } from 'zod';
import { count, defineOperation, Resumed, workflow } from '../contract';
import { DecisionOptions, DecisionState, DecisionEvaluationResponse, utf8Length } from '../platform/decision';

export const DECISION_WORKFLOW_MAX_STATE_BYTES = 256 * 1024;

export const DecisionQuestion = z.strictObject({
  kind: z.string().min(1).max(64),
  question: z.string().min(1).max(10_000),
  options: DecisionOptions.optional(),
});
export type DecisionQuestion = z.infer<typeof DecisionQuestion>;

export const EvaluateDecisionInput = z
  .strictObject({
    state: DecisionState,
    questions: z.array(DecisionQuestion).min(1).max(64),
    thinking: z.boolean().optional(),
    think_budget: z.number().int().gt(0).optional(),
    return_reasoning: z.boolean().optional(),
    maxConcurrency: z.number().int().min(1).max(32).default(4),
  })
  .superRefine((input, ctx) => {
    const size = utf8Length(JSON.stringify(input.state));
    if (size > DECISION_WORKFLOW_MAX_STATE_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['state'],
        message: `must be at most 256 KB in a workflow input (is ${Math.ceil(size / 1024)} KB): use https image URLs instead of data URLs`,
      });
    }
  })
  .meta({
    title: 'evaluateDecision input',
    description: 'Asks one or more questions about one content; one platform request per question.',
  });
export type EvaluateDecisionInput = z.input<typeof EvaluateDecisionInput>;

export const DecisionAnswer = z.object({
  index: z.number().int(),
  kind: z.string(),
  question: z.string(),
  probabilities: z.record(z.string(), z.number()),
  choice: z.string().optional(),
  promptTokens: z.number().optional(),
  completionTokens: z.number().optional(),
  numModelRequests: z.number().optional(),
  thinking: DecisionEvaluationResponse.shape.thinking,
  resumed: Resumed.optional(),
});
export type DecisionAnswer = z.infer<typeof DecisionAnswer>;

export const EvaluateDecisionResult = z
  .object({
    answers: z.array(DecisionAnswer),
    promptTokens: z.number(),
    completionTokens: z.number(),
    resumed: z.array(Resumed).optional(),
  })
  .meta({ title: 'evaluateDecision result' });
export type EvaluateDecisionResult = z.infer<typeof EvaluateDecisionResult>;

export type EvaluateDecisionStatus = 'EVALUATING' | 'EVALUATED';

export const evaluateDecision = defineOperation({
  workflows: {
    evaluateDecision: workflow(EvaluateDecisionInput, EvaluateDecisionResult, (i) => [
      count(i.questions.length, 'question'),
    ]),
  },
});
