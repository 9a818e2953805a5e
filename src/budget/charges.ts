// How many times a budget-gated job may be charged its price, at most: what its reservation must
// cover. Pure (workflow code). Every other costly call is made at most once (renew and batch create
// find an earlier attempt's work, src/activities/retries.ts), so only a generation multiplies.
import type { ParsedBudgetJob } from '../workflows/budget/contract';

interface ChargeBound {
  times: number;
  /** Why more than once, for the cost breakdown. */
  why?: string;
}

export function chargesAtMost(job: ParsedBudgetJob): ChargeBound {
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
