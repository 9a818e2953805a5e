import { proxyActivities } from '@temporalio/workflow';
import {
  DECISION_MODEL,
  DecisionEvaluationRequest,
  type DecisionState,
  type GateVerdict,
  invalidInput,
  type ParsedBudgetGatedJobInput,
  parseOrThrow,
} from '@platform-ops/client';
import type { DecisionActivities } from '../../activities/decision';
import { DEFAULT_DEADLINE_MS, untilAfterStart } from '../../workflows/retry-policies';
import { paidCall } from '../../workflows/activity-summary';

// Image sources the decision API takes; others are left out of the judged content.
const JUDGEABLE_IMAGE = /^(https:\/\/\S+|data:image\/[a-z0-9.+-]+;base64,)/i;

function contentOf(job: ParsedBudgetGatedJobInput['job']): DecisionState | undefined {
  if ('state' in job.input) return job.input.state;
  if (job.workflowType !== 'mediaGeneration') return undefined;
  const req = job.input.request;
  const shots = (req.multi_prompt ?? []) as ReadonlyArray<string | { prompt: string }>;
  // An async model's body may hold its text elsewhere (a speech model's `text`).
  const spoken = 'text' in req ? req.text : undefined;
  const text = [req.prompt, spoken, ...shots.map((s) => (typeof s === 'string' ? s : s.prompt))]
    .filter((t): t is string => typeof t === 'string' && t.length > 0)
    .join('\n');
  const images = ('image' in req ? [req.image, req.end_image] : [])
    .filter((i): i is string => typeof i === 'string' && JUDGEABLE_IMAGE.test(i))
    .map((image) => ({ image }));
  return images.length > 0 ? [text, ...images] : text;
}

export interface PreparedGate {
  request: DecisionEvaluationRequest & { options: string[] };
  passOption: string;
  threshold: number;
}

export function prepareGate(input: ParsedBudgetGatedJobInput): PreparedGate | undefined {
  const { gate } = input;
  if (!gate) return undefined;
  const options = gate.options ?? ['yes', 'no']; // the schema allows no options only for yes_no
  const request = {
    model: DECISION_MODEL as typeof DECISION_MODEL,
    kind: gate.kind,
    state: gate.state ?? contentOf(input.job)!,
    question: gate.question,
    options,
    thinking: gate.thinking,
  };
  parseOrThrow(DecisionEvaluationRequest, request, (issues) =>
    invalidInput(
      'budgetGatedJob',
      issues.map((i) => ({ ...i, field: i.field ? `gate.${i.field}` : 'gate' })),
    ),
  );
  return { request, passOption: gate.passOption ?? options[0], threshold: gate.threshold };
}

export async function runGate(gate: PreparedGate): Promise<GateVerdict> {
  // A request the client gave up on may still have been billed: each such retry may pay for one more small
  // evaluation, accepted (the gate's estimate is reserved with the job).
  const { evaluateQuestion } = proxyActivities<DecisionActivities>(
    untilAfterStart(DEFAULT_DEADLINE_MS.budgetAdmission),
  );
  const answer = await paidCall(evaluateQuestion, 'evaluate the gate question')({ index: 0, request: gate.request });
  const probability = answer.probabilities[gate.passOption] ?? 0;
  return {
    question: gate.request.question,
    passOption: gate.passOption,
    threshold: gate.threshold,
    probability,
    probabilities: answer.probabilities,
    choice: answer.choice,
    passed: probability >= gate.threshold,
    promptTokens: answer.promptTokens,
    resumed: answer.resumed,
  };
}
