// What the budget ledger workflow asks of the outside world: the platform's budget check, and whether
// the jobs holding reservations still run.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { PlatformClient } from '../../platform/client';

export interface CheckMemberBudgetInput {
  memberId: string;
  /** 1/10000 USD: the job's cost plus every reservation the ledger holds. */
  cost: number;
}

export interface CheckMemberBudgetResult {
  enough: boolean;
  /** Epoch ms of the answer, on the worker's clock (workflow code keeps no clock of its own). */
  checkedAt: number;
}

export interface FindEndedHoldersInput {
  holders: { workflowId: string; runId?: string }[];
}

export function createLedgerActivities(platform: PlatformClient, temporal: Client) {
  return {
    async checkMemberBudget({ memberId, cost }: CheckMemberBudgetInput): Promise<CheckMemberBudgetResult> {
      const { enough } = await platform.checkMemberBudget(
        { member_id: memberId, cost },
        { signal: Context.current().cancellationSignal },
      );
      return { enough, checkedAt: Date.now() };
    },

    /** The workflow ids among `holders` whose run has ended (or is unknown): their reservations are stale. */
    async findEndedHolders({ holders }: FindEndedHoldersInput): Promise<string[]> {
      const ended: string[] = [];
      for (const { workflowId, runId } of holders) {
        try {
          const { status } = await temporal.workflow.getHandle(workflowId, runId).describe();
          if (status.name !== 'RUNNING') ended.push(workflowId);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) ended.push(workflowId);
          else throw err;
        }
        Context.current().heartbeat();
      }
      return ended;
    },
  };
}
