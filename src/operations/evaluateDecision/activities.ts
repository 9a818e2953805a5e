// Its one activity, the decision question, is shared with budgetGatedJob's gate (src/activities/decision.ts).
export {
  createDecisionActivities,
  type DecisionActivities as Activities,
  type EvaluateQuestionInput,
} from '../../activities/decision';
