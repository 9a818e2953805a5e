// What the budget ledger workflow asks of the outside world: the platform's budget check, and whether
// the jobs holding reservations still run.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ActivityDeps } from '..';
import type { PlatformClient } from '../../platform-client/client';
import { coveredInOrder } from './covered';

export interface CheckMemberBudgetInput {
  memberId: string;
  /** 1/10000 USD the ledger holds for other jobs already. */
  held: number;
  /** The costs of the jobs asking, in the order they asked. */
  costs: number[];
}

export interface CheckMemberBudgetResult {
  /** Per cost: whether the budget covers it on top of what is held and what the earlier ones took. */
  enough: boolean[];
  /** Epoch ms of the last answer, on the worker's clock (workflow code keeps no clock of its own). */
  checkedAt: number;
}

export interface FindEndedHoldersInput {
  /** Each holder's current run is looked up: a reset or retried run of a job holds its reservation. */
  holders: { workflowId: string }[];
}

export function createLedgerActivities(platform: PlatformClient, temporal: Client) {
  return {
    /**
     * The platform's check for each job in turn, each on top of what the ones before it took: the
     * jobs a ledger admits together never add up to more than the budget. Only reads, and the ledger
     * acts only on the answer the server delivers, so a retried attempt (even one started while the
     * first still runs, after a timeout) just asks again and the slower answer is dropped.
     */
    async checkMemberBudget({ memberId, held, costs }: CheckMemberBudgetInput): Promise<CheckMemberBudgetResult> {
      const { cancellationSignal: signal } = Context.current();
      const covers = async (amount: number) =>
        (await platform.checkMemberBudget({ member_id: memberId, cost: amount }, { signal })).enough;
      return { enough: await coveredInOrder(held, costs, covers), checkedAt: Date.now() };
    },

    /** The workflow ids among `holders` whose run has ended (or is unknown): their reservations are stale. */
    async findEndedHolders({ holders }: FindEndedHoldersInput): Promise<string[]> {
      const ended: string[] = [];
      for (const { workflowId } of holders) {
        try {
          const { status } = await temporal.workflow.getHandle(workflowId).describe();
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

export function createActivities({ platform, temporal }: ActivityDeps) {
  return createLedgerActivities(platform, temporal);
}
export type Activities = ReturnType<typeof createActivities>;
