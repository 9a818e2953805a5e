// The decision API's question, one paid call: evaluateDecision asks its questions with it, and a budget-gated job's
// gate asks one before its job is submitted.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { DecisionAnswer, DecisionEvaluationRequest } from '@platform-ops/client';
import type { PlatformClient } from '../platform-client/client';
import { answerPaidCall, earlierPaidCall, type AfterReset } from './earlier-runs';

export interface EvaluateQuestionInput {
  index: number;
  request: DecisionEvaluationRequest;
}

export function createDecisionActivities({ platform, temporal }: { platform: PlatformClient; temporal: Client }) {
  return {
    async evaluateQuestion({
      index,
      request,
      afterReset,
    }: EvaluateQuestionInput & AfterReset): Promise<DecisionAnswer> {
      const ctx = Context.current();
      if (afterReset) {
        const earlier = await earlierPaidCall<EvaluateQuestionInput, DecisionAnswer>(temporal, ctx);
        if (earlier?.outcome === 'answered') {
          const found = `the answer to question ${index + 1}`;
          return { ...earlier.result!, resumed: { runId: earlier.runId, call: ctx.info.activityType, found } };
        }
      }
      const res = await platform.decisionEvaluation(request, { signal: ctx.cancellationSignal });
      return answerPaidCall(temporal, ctx, {
        index,
        kind: request.kind,
        question: request.question,
        probabilities: res.probabilities,
        choice: res.choice,
        promptTokens: res.usage?.prompt_tokens,
        completionTokens: res.usage?.completion_tokens,
        numModelRequests: res.num_model_requests,
        thinking: res.thinking,
      });
    },
  };
}
export type DecisionActivities = ReturnType<typeof createDecisionActivities>;
