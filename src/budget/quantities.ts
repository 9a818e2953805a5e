// What a job consumes, in the units the price table prices (seconds of video, questions, requests,
// months), and how many times it may be charged that price at most. Pure: the workflow works the
// quantities out, and only these few numbers (never a batch's requests) go to the activity that prices
// them with the worker's table.
import type { ParsedBudgetJob } from '../workflows/budget/contract';
import type { DecisionState } from '../platform/schemas/decision';
import { requestedVideoSeconds } from '../platform/schemas/media';

export type JobQuantities =
  | {
      workflowType: 'mediaGeneration';
      operation: 'image-to-video' | 'text-to-video';
      seconds: number;
      sound: boolean;
      /** Images the NSFW check bills: one per video (its key frame) when detection is on. */
      nsfwImages: number;
    }
  /** The "async" form: one task of a registry model, priced per task from the registry. */
  | { workflowType: 'mediaGeneration'; operation: 'async'; model: string }
  | { workflowType: 'evaluateDecision'; questions: number; images: number }
  /** `requests` is unknown when the batch comes as a file. */
  | { workflowType: 'batchJob'; requests?: number }
  | { workflowType: 'renewInstance'; months: number }
  | { workflowType: 'restartInstance' }
  | { workflowType: 'billingReport' };

export function imagesIn(state: DecisionState): number {
  return typeof state === 'string' ? 0 : state.filter((p) => typeof p !== 'string').length;
}

export function jobQuantities(job: ParsedBudgetJob): JobQuantities {
  switch (job.workflowType) {
    case 'mediaGeneration': {
      if (job.input.operation === 'async') {
        return { workflowType: job.workflowType, operation: 'async', model: job.input.model };
      }
      const { operation, request } = job.input;
      return {
        workflowType: job.workflowType,
        operation,
        seconds: requestedVideoSeconds(request),
        sound: request.sound ?? false,
        nsfwImages: request.extra?.enable_nsfw_detection ? 1 : 0,
      };
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

/**
 * What a reservation must cover, with why it is more than once (for the cost breakdown). Every other
 * costly call is made at most once (renew and batch create find an earlier attempt's work,
 * src/activities/in-flight.ts), so only a generation multiplies.
 */
export function chargesAtMost(job: ParsedBudgetJob): { times: number; why?: string } {
  if (job.workflowType !== 'mediaGeneration') return { times: 1 };
  const { regeneration, submission } = job.input;
  // A task that failed may be charged, and each generation after it is another task.
  const generations = 1 + regeneration.maxRegenerations;
  // With "resubmit", every attempt that may have created a task is a possible charge (at most
  // maxAttempts per generation, src/workflows/media/submit.ts); with "fail", the first ends the run.
  const perGeneration = submission.onAmbiguous === 'resubmit' ? submission.maxAttempts : 1;
  const times = generations * perGeneration;
  if (times === 1) return { times };
  const parts = [
    generations > 1 ? `${generations} generations` : undefined,
    perGeneration > 1 ? `${perGeneration} possibly paid submits each` : undefined,
  ].filter(Boolean);
  return { times, why: parts.join(' × ') };
}
