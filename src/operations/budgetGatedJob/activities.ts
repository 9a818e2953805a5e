// A budget-gated job's activities: its price, its member's ledger (src/activities/member-budget.ts) and, after a
// reset, the job an earlier run started.
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, type Resumed } from '@platform-ops/client';
import type { ActivityDeps } from '../activities-deps';
import { pollAgainIn } from '../../activities/retries';
import { createMemberBudgetActivities } from '../../activities/member-budget';
import { createPriceActivities } from './activities-price';

const EARLIER_JOB_MAX_GAP_MS = 60_000;

export { priceQuantities, type PriceBudgetJobResult } from './activities-price';

export function createBudgetActivities({ temporal, prices }: ActivityDeps) {
  return {
    ...createPriceActivities(prices),
    ...createMemberBudgetActivities({ temporal }),

    /** The job an earlier run started, which a reset left running under the same id (a reset touches no child). */
    async awaitEarlierJob(workflowId: string): Promise<{ result: unknown; resumed: Resumed }> {
      const { attempt } = Context.current().info;
      const handle = temporal.workflow.getHandle(workflowId);
      const { status, parentExecution } = await handle.describe();
      if (status.name === 'RUNNING') {
        const gap = Math.min(EARLIER_JOB_MAX_GAP_MS, 1_000 * 2 ** Math.min(attempt - 1, 10));
        throw pollAgainIn(gap, `job ${workflowId} of an earlier run is still running`, { workflowId });
      }
      const found = `job ${workflowId}, started by the earlier run (${status.name.toLowerCase()})`;
      const resumed = { runId: parentExecution?.runId ?? '', call: 'executeChild', found };
      try {
        return { result: await handle.result(), resumed };
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
        const { cause } = err;
        // Cancelled, terminated or timed out: it ended, and no wait will bring a result.
        if (!(cause instanceof ApplicationFailure)) {
          throw ApplicationFailure.nonRetryable(
            `job ${workflowId} of an earlier run ended ${status.name.toLowerCase()}, without a result`,
            FailureType.JobStopped,
          );
        }
        const { type, message, details } = cause;
        throw ApplicationFailure.create({
          type: type ?? undefined,
          message,
          nonRetryable: true,
          details: details ?? undefined,
        });
      }
    },
  };
}
export type Activities = ReturnType<typeof createBudgetActivities>;
