import { proxyActivities, setHandler } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  DECISION_MODEL,
  DecisionEvaluationRequest,
  EvaluateDecisionInput,
  type EvaluateDecisionResult,
  type EvaluateDecisionStatus,
  invalidInput,
  parseInput,
  statusQuery,
  tryParse,
  type ValidationIssue,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, EvaluateQuestionInput } from './activities';
import { mapBounded } from '../../shared/lanes';
import { HOUR_MS, untilAfterStart } from '../../workflows/retry-policies';
import { trackStatus } from '../../workflows/status';
import { paidCall } from '../../workflows/activity-summary';

const DEADLINE_MS = 6 * HOUR_MS;

export async function evaluateDecision(rawInput: EvaluateDecisionInput): Promise<EvaluateDecisionResult> {
  const input = parseInput(EvaluateDecisionInput, rawInput, WorkflowType.evaluateDecision);
  // All are checked before the first is sent.
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
    const checked = tryParse(DecisionEvaluationRequest, request);
    if (checked.ok) return [];
    return checked.issues.map((i) =>
      i.field.startsWith('state') ? i : { ...i, field: `questions[${index}]${i.field ? `.${i.field}` : ''}` },
    );
  });
  if (issues.length > 0) throw invalidInput(WorkflowType.evaluateDecision, issues);

  const status = trackStatus<EvaluateDecisionStatus>(WorkflowType.evaluateDecision, 'EVALUATING', {});
  setHandler(statusQuery, () => status.current);
  // Each attempt outlives the client's timeout (thinking raises latency well above the usual 0.2 s).
  const platform = proxyActivities<Activities>(untilAfterStart(DEADLINE_MS));
  let answered = 0;
  status.detail({ answered, total: requests.length });
  const answers = await mapBounded(requests, input.maxConcurrency, async (req) => {
    // Only a call slower than PLATFORM_PAID_CALL_TIMEOUT_MS, then retried, may pay for one more evaluation.
    const answer = await paidCall(platform.evaluateQuestion, `evaluate question ${req.index + 1}`)(req);
    status.detail({ answered: ++answered, ...(answer.resumed && { resumedFrom: answer.resumed.runId }) });
    return answer;
  });
  status.set('EVALUATED');
  const resumed = answers.flatMap((a) => a.resumed ?? []);
  return {
    answers,
    ...(resumed.length > 0 && { resumed }),
    promptTokens: answers.reduce((sum, a) => sum + (a.promptTokens ?? 0), 0),
    completionTokens: answers.reduce((sum, a) => sum + (a.completionTokens ?? 0), 0),
  };
}

setVersioningBehavior('PINNED', evaluateDecision);
