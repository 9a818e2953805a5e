// GPU instance lifecycle activities: thin wrappers over the platform client for create, list, start,
// stop and delete. Create costs money (a subscription's months), so it answers "what if this is
// retried while the first attempt is still in flight?" as renew and batch create do (./in-flight.ts).
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { FailureType } from '../../api/failures';
import type { PlatformClient } from '../../platform-client/client';
import type { CreateInstanceRequest, ListedInstance } from '../../platform/schemas/gpu';
import { findAfterEarlierAttempts, inFlightSettleMs, sendCostly } from '../in-flight';

/** The most instances one list returns into a workflow's history (a few hundred bytes each). */
export const LIST_INSTANCES_MAX = 500;

/** An instance as the workflows see it: only what they decide on goes into history. */
export interface InstanceSummary {
  id: string;
  name?: string;
  status: string;
  billingMode?: string;
  /** Unix seconds (string or number, as the platform sent it); -1 for pay-as-you-go. */
  endTime?: string | number;
  memberId?: string;
}

export interface ListInstancesResult {
  instances: InstanceSummary[];
  /** More instances than LIST_INSTANCES_MAX: the rest were not read. */
  truncated: boolean;
}

export interface CreateInstanceResult {
  instanceId: string;
  /** A retried create found the instance an earlier attempt created, and did not create (or pay) again. */
  alreadyApplied: boolean;
}

const GONE = new Set(['toRemove', 'removing', 'removed']);

const summary = (i: ListedInstance): InstanceSummary => ({
  id: i.id,
  name: i.name,
  status: i.status,
  billingMode: i.billingMode,
  endTime: i.endTime,
  memberId: i.memberId,
});

export function createInstanceLifecycleActivities(platform: PlatformClient) {
  const signal = () => Context.current().cancellationSignal;

  /** The live instance of that name (names are how a create is found again), if any. */
  async function findByName(name: string): Promise<ListedInstance | undefined> {
    for await (const inst of platform.iterateInstances({ limit: 100 }, { signal: signal() })) {
      if (inst.name === name && !GONE.has(inst.status)) return inst;
    }
    return undefined;
  }

  return {
    /** The instances of a member (or all the key sees), at most LIST_INSTANCES_MAX, in the platform's order. */
    async listInstances(input: { memberId?: string }): Promise<ListInstancesResult> {
      const instances: InstanceSummary[] = [];
      for await (const inst of platform.iterateInstances(
        { memberId: input.memberId, limit: 100 },
        { signal: signal() },
      )) {
        if (instances.length === LIST_INSTANCES_MAX) return { instances, truncated: true };
        instances.push(summary(inst));
      }
      return { instances, truncated: false };
    },

    /**
     * Creating a subscription costs money and the platform takes no idempotency key; an instance's
     * name is the key instead. A first attempt refuses a name a live instance already has (it would be
     * someone else's, and a retry could not tell them apart); a retry looks for the name until no
     * earlier request can still land (./in-flight.ts), and returns that instance instead of a second.
     */
    async createInstance(request: CreateInstanceRequest): Promise<CreateInstanceResult> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      if (attempt === 1) {
        const taken = await findByName(request.name);
        if (taken) {
          throw ApplicationFailure.create({
            type: FailureType.PlatformRejected,
            nonRetryable: true,
            message:
              `An instance named "${request.name}" already exists (${taken.id}, ${taken.status}): a create is ` +
              'found again by its name after a lost answer, so each create needs a name no live instance has',
          });
        }
      } else {
        const earlier = await findAfterEarlierAttempts(ctx, inFlightSettleMs(platform.config.timeoutMs), () =>
          findByName(request.name),
        );
        if (earlier) {
          log.info('Instance already created by an earlier attempt', { instanceId: earlier.id, attempt });
          return { instanceId: earlier.id, alreadyApplied: true };
        }
      }
      const { instanceId } = await sendCostly(ctx, () => platform.createInstance(request, { signal: signal() }));
      return { instanceId, alreadyApplied: false };
    },

    // Free, and a repeat while the first is under way does no harm (the platform answers it as done).
    async startInstance(instanceId: string): Promise<void> {
      await platform.startInstance({ instanceId }, { signal: signal() });
    },

    async stopInstance(instanceId: string): Promise<void> {
      await platform.stopInstance({ instanceId }, { signal: signal() });
    },

    async deleteInstance(instanceId: string): Promise<void> {
      await platform.deleteInstance({ instanceId }, { signal: signal() });
    },
  };
}
