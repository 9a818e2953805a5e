import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityDeps } from '../activities-deps';
import type { BudgetCheckResult } from './ledger-book';

interface CheckMemberBudgetInput {
  memberId: string;
  held: number;
  costs: number[];
}

interface FindEndedHoldersInput {
  /** Each holder's current run is looked up: a reset or retried run of a job holds its reservation. */
  holders: { workflowId: string }[];
}

export function createBudgetLedgerActivities({ platform, temporal }: ActivityDeps) {
  return {
    // Only reads, and the ledger acts only on the answer the server delivers: a retry asks again.
    async checkMemberBudget({ memberId, held, costs }: CheckMemberBudgetInput): Promise<BudgetCheckResult> {
      const { cancellationSignal: signal } = Context.current();
      const covers = async (amount: number) =>
        (await platform.checkMemberBudget({ member_id: memberId, cost: amount }, { signal })).enough;
      return { enough: await coveredInOrder(held, costs, covers), checkedAt: Date.now() };
    },

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

type Covers = (amount: number) => Promise<boolean>;

/**
 * What one question per cost would answer, in far fewer: each answer bounds the remaining budget (a "yes" covers
 * every smaller amount, a "no" refuses every larger one): the whole batch first, then halving.
 */
export async function coveredInOrder(held: number, costs: readonly number[], ask: Covers): Promise<boolean[]> {
  let covered = -Infinity; // the largest amount known to be covered
  let refused = Infinity; // the smallest amount known not to be
  const covers = async (amount: number): Promise<boolean> => {
    if (amount <= covered) return true;
    if (amount >= refused) return false;
    const yes = await ask(amount);
    if (yes) covered = amount;
    else refused = amount;
    return yes;
  };
  const prefix = [held];
  for (const cost of costs) prefix.push(prefix[prefix.length - 1] + cost);
  if (costs.length > 1 && !(await covers(prefix[costs.length]))) {
    // prefix[lo] is covered (or lo = 0), prefix[hi] is not. A free job (cost 0) leaves a sum as it is,
    // so the sums only grow and halving is sound.
    let lo = 0;
    let hi = costs.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (await covers(prefix[mid])) lo = mid;
      else hi = mid;
    }
  }
  const enough: boolean[] = [];
  let taken = held;
  for (const cost of costs) {
    const yes = await covers(taken + cost);
    enough.push(yes);
    if (yes) taken += cost;
  }
  return enough;
}

export type Activities = ReturnType<typeof createBudgetLedgerActivities>;
