// Decision evaluation: one content, several questions, one platform request per question.
import { proxyActivities } from '@temporalio/workflow';
import { WorkflowType } from '../api/names';
import { EvaluateDecisionInput, type EvaluateDecisionResult } from '../api/schemas/decision';
import { invalidInput, parseInput } from '../api/validate';
import type { Activities, EvaluateQuestionInput } from '../activities';
import { DECISION_MODEL, DecisionEvaluationRequest } from '../platform/schemas/decision';
import { describeZodError, type ValidationIssue } from '../platform/validation';
import { mapBounded } from './concurrency';
import { trackStatus } from './status';

const platform = proxyActivities<Activities>({
  // Thinking raises latency well above the usual 0.2 s.
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 8 },
});

export async function evaluateDecision(rawInput: EvaluateDecisionInput): Promise<EvaluateDecisionResult> {
  const input = parseInput(EvaluateDecisionInput, rawInput, WorkflowType.evaluateDecision);

  // Every question becomes a full platform request; all are checked before the first is sent.
  const requests: EvaluateQuestionInput[] = input.questions.map((q, index) => ({
    index,
    request: {
      model: DECISION_MODEL,
      kind: q.kind,
      state: input.state,
      question: q.question,
      options: q.options,
      thinking: input.thinking,
      think_budget: input.think_budget,
      return_reasoning: input.return_reasoning,
    },
  }));
  const issues: ValidationIssue[] = requests.flatMap(({ index, request }) => {
    const parsed = DecisionEvaluationRequest.safeParse(request);
    if (parsed.success) return [];
    return describeZodError(parsed.error).map((i) =>
      i.field.startsWith('state') ? i : { ...i, field: `questions[${index}]${i.field ? `.${i.field}` : ''}` },
    );
  });
  if (issues.length > 0) throw invalidInput(WorkflowType.evaluateDecision, issues);

  const status = trackStatus(WorkflowType.evaluateDecision, 'EVALUATING', {});
  let answered = 0;
  status.detail({ answered, total: requests.length });
  const answers = await mapBounded(requests, input.maxConcurrency, async (req) => {
    const answer = await platform.evaluateDecisionQuestion(req);
    status.detail({ answered: ++answered });
    return answer;
  });
  status.set('EVALUATED');

  return {
    answers,
    promptTokens: answers.reduce((sum, a) => sum + (a.promptTokens ?? 0), 0),
    completionTokens: answers.reduce((sum, a) => sum + (a.completionTokens ?? 0), 0),
  };
}
