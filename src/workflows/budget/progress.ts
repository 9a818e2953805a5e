// budgetGatedJob's progress, for operators and the starter: the budgetJobProgress query answers it at
// any time (`current`; the workflow registers the query at its top); PlatformStatus
// (WAITING_FOR_BUDGET …) and PlatformCostEstimate follow its changes only.
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes } from '../../api/contract';
import { WorkflowType } from '../operations';
import type { BudgetGatedJobStatus, BudgetJobProgress, ParsedBudgetGatedJobInput } from './contract';
import { trackStatus } from '../status';

export function trackBudgetJobProgress(input: ParsedBudgetGatedJobInput, reservationId: string) {
  const status = trackStatus<BudgetGatedJobStatus>(WorkflowType.budgetGatedJob, 'PRICING', {
    memberId: input.memberId,
  });
  let progress: BudgetJobProgress = {
    status: 'PRICING',
    memberId: input.memberId,
    onInsufficient: input.onInsufficient,
    reservationId,
    checks: 0,
  };

  return {
    /** The business status: what the `status` query answers (`status.current`). */
    status,
    update(patch: Partial<BudgetJobProgress>) {
      if (patch.cost !== undefined && patch.cost !== progress.cost) {
        upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: patch.cost }]);
      }
      progress = { ...progress, ...patch };
      if (patch.status !== undefined) status.set(patch.status);
      status.detail({ ...progress });
    },
    get current(): BudgetJobProgress {
      return progress;
    },
  };
}
export type BudgetJobProgressTracker = ReturnType<typeof trackBudgetJobProgress>;
