// Decision evaluation activity: one platform request for one question.
import { Context } from '@temporalio/activity';
import type { DecisionAnswer } from '../../workflows/decision/contract';
import type { DecisionEvaluationRequest } from '../../platform/schemas/decision';
import type { ActivityDeps } from '..';

export interface EvaluateQuestionInput {
  index: number;
  request: DecisionEvaluationRequest;
}

export function createActivities({ platform }: ActivityDeps) {
  return {
    async evaluateQuestion({ index, request }: EvaluateQuestionInput): Promise<DecisionAnswer> {
      const res = await platform.decisionEvaluation(request, { signal: Context.current().cancellationSignal });
      return {
        index,
        kind: request.kind,
        question: request.question,
        probabilities: res.probabilities,
        choice: res.choice,
        promptTokens: res.usage?.prompt_tokens,
        completionTokens: res.usage?.completion_tokens,
        numModelRequests: res.num_model_requests,
        thinking: res.thinking,
      };
    },
  };
}
export type Activities = ReturnType<typeof createActivities>;
