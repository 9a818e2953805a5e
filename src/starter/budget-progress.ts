// One line that says where a budgetGatedJob stands, from its `budgetJobProgress` query, and one that
// sums up its result. Pure (the time is a parameter), so they are tested without a workflow or a clock.
import { BudgetGatedJobResult, type BudgetJobProgress } from '../workflows/budget/contract';
import { usdText } from '../platform/money';
import { formatSeconds } from './progress';

/** `5600 (0.5600 USD)`: the platform's unit (1/10000 USD), and what it means. */
export function formatAmount(amount: number): string {
  return `${amount} (${usdText(amount)} USD)`;
}

/**
 * E.g. `WAITING_FOR_BUDGET  cost 1000 (0.1000 USD)  checks 3  others hold 5600  wait ends in 9m58s`.
 * The countdown is to the wait's deadline (on the worker's clock), shown only while waiting.
 */
export function renderBudgetJobProgress(p: BudgetJobProgress, now: number): string {
  const parts: string[] = [p.outcome ?? p.status];
  if (p.cost !== undefined) parts.push(`cost ${formatAmount(p.cost)}`);
  if (p.gateCost) parts.push(`gate ${formatAmount(p.gateCost)}`);
  parts.push(`checks ${p.checks}`);
  const waiting = p.status === 'WAITING_FOR_BUDGET';
  if (waiting && p.lastRefusal && p.lastRefusal.outstanding > 0) {
    parts.push(`others hold ${p.lastRefusal.outstanding}`);
  }
  const deadline = p.waitDeadline ? Date.parse(p.waitDeadline) : NaN;
  if (waiting && Number.isFinite(deadline)) parts.push(`wait ends in ${formatSeconds((deadline - now) / 1000)}`);
  if (p.childWorkflowId) parts.push(`job ${p.childWorkflowId}`);
  return parts.join('  ');
}

/**
 * After the result: `Completed: reserved 5600 (0.5600 USD), job mediaGeneration as workflow x/mediaGeneration.`,
 * or the outcome and its reason. Undefined for anything but a budgetGatedJob result.
 */
export function renderBudgetJobSummary(result: unknown): string | undefined {
  const parsed = BudgetGatedJobResult.safeParse(result);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  const job = r.job ? `, job ${r.job.workflowType} as workflow ${r.job.workflowId}` : '';
  return `${r.outcome}: reserved ${formatAmount(r.admission.reserved)}${job}.${r.reason ? ` ${r.reason}` : ''}`;
}
