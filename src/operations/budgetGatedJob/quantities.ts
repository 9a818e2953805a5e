// Only these few numbers (never a batch's requests) go to the activity that prices them with the worker's table.
import { type DecisionState, type ParsedBudgetJob, requestedVideoSeconds } from '@platform-ops/client';

export function imagesIn(state: DecisionState): number {
  return typeof state === 'string' ? 0 : state.filter((p) => typeof p !== 'string').length;
}

export type JobQuantities = ReturnType<typeof jobQuantities>;

export function jobQuantities(job: ParsedBudgetJob) {
  switch (job.workflowType) {
    case 'mediaGeneration': {
      if (job.input.operation === 'async') {
        return { workflowType: job.workflowType, operation: 'async' as const, model: job.input.model };
      }
      const { operation, request } = job.input;
      const seconds = requestedVideoSeconds(request);
      // The NSFW check bills one image per video (its key frame) when detection is on.
      const nsfwImages = request.extra?.enable_nsfw_detection ? 1 : 0;
      return { workflowType: job.workflowType, operation, seconds, sound: request.sound ?? false, nsfwImages };
    }
    case 'evaluateDecision':
      return {
        workflowType: job.workflowType,
        questions: job.input.questions.length,
        images: imagesIn(job.input.state),
      };
    case 'batchJob':
      return { workflowType: job.workflowType, requests: job.input.requests?.length };
    case 'renewInstance':
      return { workflowType: job.workflowType, months: job.input.months };
    case 'restartInstance':
    case 'billingReport':
      return { workflowType: job.workflowType };
  }
}

// Every other costly call is made at most once (docs/retries.md#money-exactly-once), so only a generation multiplies.
export function chargesAtMost(job: ParsedBudgetJob): { times: number; why?: string } {
  if (job.workflowType !== 'mediaGeneration') return { times: 1 };
  const { regeneration, submission } = job.input;
  // A task that failed may be charged, and each generation after it is another task.
  const generations = 1 + regeneration.maxRegenerations;
  // With "resubmit", every attempt that may have created a task is a possible charge.
  const perGeneration = submission.onAmbiguous === 'resubmit' ? submission.maxAttempts : 1;
  const times = generations * perGeneration;
  if (times === 1) return { times };
  const parts = [
    generations > 1 ? `${generations} generations` : undefined,
    perGeneration > 1 ? `${perGeneration} possibly paid submits each` : undefined,
  ].filter(Boolean);
  return { times, why: parts.join(' × ') };
}
