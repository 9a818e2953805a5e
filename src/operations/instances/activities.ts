import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { ActivityDeps } from '../activities-deps';
import {
  type CreateInstanceRequest,
  FailureType,
  type Instance,
  type ListedInstance,
  type Resumed,
} from '@platform-ops/client';
import { answerPaidCall, madeByEarlierRun, resumedFrom, type AfterReset } from '../../activities/earlier-runs';
import {
  awaitPollTurn,
  errorBackoffMs,
  findAfterEarlierAttempts,
  pollAgainIn,
  pollRead,
  sendCostly,
} from '../../activities/retries';

// Into a workflow's history, a few hundred bytes each.
const LIST_INSTANCES_MAX = 500;

type InstanceSnapshot = Pick<Instance, 'id' | 'status' | 'endTime' | 'statusError'>;

type InstanceSummary = Pick<ListedInstance, 'id' | 'name' | 'status' | 'billingMode' | 'endTime' | 'memberId'>;

interface ListInstancesResult {
  instances: InstanceSummary[];
  truncated: boolean;
}

export interface CreateInstanceResult {
  instanceId: string;
  alreadyApplied: boolean;
  resumed?: Resumed;
}

interface RenewOnPlatformResult {
  alreadyApplied: boolean;
  resumed?: Resumed;
  endTimeBefore?: string | number;
}

interface RenewOnPlatformInput {
  instanceId: string;
  months: number;
  /** Read before the first attempt: lets a retry see that the renewal already happened. */
  endTimeBefore?: string | number;
}

export interface InstanceObservation {
  instanceId: string;
  statuses: string[];
  polls: number;
  observedAt: number;
  nextPollAt?: number;
  intervalMs?: number;
}

export interface PollInstanceStatusInput {
  instanceId: string;
  target: string;
  deadlineAt: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
  since?: InstanceObservation;
}

export interface InstanceCheckpoint {
  observation: InstanceObservation;
  outcome: 'changed' | 'reached' | 'timedOut';
}

export function instanceGapMs(firstMs: number, n: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(n - 1, 0), 30));
}

const GONE = new Set(['toRemove', 'removing', 'removed']);

export function createInstanceActivities({ platform, temporal }: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;

  // Names are how a create is found again.
  async function findByName(name: string): Promise<ListedInstance | undefined> {
    for await (const inst of platform.iterateInstances({ limit: 100 }, { signal: signal() })) {
      if (inst.name === name && !GONE.has(inst.status)) return inst;
    }
    return undefined;
  }

  const action =
    (name: 'restartInstance' | 'startInstance' | 'stopInstance' | 'deleteInstance') =>
    async (instanceId: string): Promise<void> => {
      await platform[name]({ instanceId }, { signal: signal() });
    };

  return {
    async getInstance(instanceId: string): Promise<InstanceSnapshot> {
      const { id, status, endTime, statusError } = await platform.getInstance({ instanceId }, { signal: signal() });
      return { id, status, endTime, statusError };
    },

    async listInstances(input: { memberId?: string }): Promise<ListInstancesResult> {
      const instances: InstanceSummary[] = [];
      const all = platform.iterateInstances({ memberId: input.memberId, limit: 100 }, { signal: signal() });
      for await (const { id, name, status, billingMode, endTime, memberId } of all) {
        if (instances.length === LIST_INSTANCES_MAX) return { instances, truncated: true };
        instances.push({ id, name, status, billingMode, endTime, memberId });
      }
      return { instances, truncated: false };
    },

    // The platform takes no idempotency key: the proof that an earlier attempt got through is an expiry that moved
    // since the workflow first read it. A retry watches for that until no earlier request can still land.
    async renewInstance(input: RenewOnPlatformInput & AfterReset): Promise<RenewOnPlatformResult> {
      const ctx = Context.current();
      const { instanceId, endTimeBefore } = input;
      if (input.afterReset) {
        // A lost answer is judged by the expiry that run read: moved since, the renewal was applied.
        const earlier = await madeByEarlierRun(temporal, ctx, {
          fromAnswer: () => true,
          lookUp: async (made: RenewOnPlatformInput) => {
            const now = await platform.getInstance({ instanceId }, { signal: signal() });
            return String(now.endTime) !== String(made.endTimeBefore) || undefined;
          },
        });
        if (earlier) {
          const before = earlier.earlier.input.endTimeBefore;
          const resumed = resumedFrom(ctx, earlier.earlier, `the renewal from the expiry ${before}`);
          return answerPaidCall(temporal, ctx, { alreadyApplied: true, endTimeBefore: before, resumed });
        }
      }
      if (endTimeBefore !== undefined) {
        const applied = await findAfterEarlierAttempts(ctx, platform, async () => {
          const now = await platform.getInstance({ instanceId }, { signal: signal() });
          return String(now.endTime) !== String(endTimeBefore) ? true : undefined;
        });
        if (applied) {
          log.info('Renewal already applied by an earlier attempt', { instanceId, attempt: ctx.info.attempt });
          return { alreadyApplied: true };
        }
      }
      await sendCostly(ctx, () => platform.renewInstance({ instanceId, months: input.months }, { signal: signal() }));
      return answerPaidCall(temporal, ctx, { alreadyApplied: false });
    },

    // An instance's name is the idempotency key. A first attempt refuses a name a live instance already has (it would
    // be someone else's); a retry looks for the name until no earlier request can still land.
    async createInstance({
      afterReset,
      ...request
    }: CreateInstanceRequest & AfterReset): Promise<CreateInstanceResult> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const earlier = afterReset
        ? await madeByEarlierRun(temporal, ctx, {
            fromAnswer: (result: CreateInstanceResult) => result.instanceId,
            lookUp: async (made: CreateInstanceRequest) => (await findByName(made.name))?.id,
          })
        : undefined;
      if (earlier) {
        const resumed = resumedFrom(ctx, earlier.earlier, `instance ${earlier.made}`);
        return answerPaidCall(temporal, ctx, { instanceId: earlier.made, alreadyApplied: true, resumed });
      }
      if (attempt === 1) {
        const taken = await findByName(request.name);
        if (taken) {
          throw ApplicationFailure.nonRetryable(
            `An instance named "${request.name}" already exists (${taken.id}, ${taken.status}): a create is ` +
              'found again by its name after a lost answer, so each create needs a name no live instance has',
            FailureType.PlatformRejected,
          );
        }
      } else {
        const earlier = await findAfterEarlierAttempts(ctx, platform, () => findByName(request.name));
        if (earlier) {
          log.info('Instance already created by an earlier attempt', { instanceId: earlier.id, attempt });
          return { instanceId: earlier.id, alreadyApplied: true };
        }
      }
      const { instanceId } = await sendCostly(ctx, () => platform.createInstance(request, { signal: signal() }));
      return answerPaidCall(temporal, ctx, { instanceId, alreadyApplied: false });
    },

    // Free, and a repeat while the first is under way does no harm (the platform answers it as done).
    restartInstance: action('restartInstance'),
    startInstance: action('startInstance'),
    stopInstance: action('stopInstance'),
    deleteInstance: action('deleteInstance'),

    // The same status again fails as StillRunning with the next gap; a new status, the target or the deadline returns.
    async pollInstanceStatus(input: PollInstanceStatusInput): Promise<InstanceCheckpoint> {
      const ctx = Context.current();
      const { since, deadlineAt, instanceId, initialIntervalMs, maxIntervalMs } = input;
      const n = await awaitPollTurn(ctx, instanceId, since, deadlineAt);
      const polls = (since?.polls ?? 0) + n;
      const statuses = since?.statuses ?? [];
      const status = await pollRead(
        ctx,
        platform,
        async (opts) => (await platform.getInstance({ instanceId }, opts)).status,
        (err) =>
          Math.min(errorBackoffMs(err, ctx.info.attempt, initialIntervalMs, maxIntervalMs), deadlineAt - Date.now()),
      ).catch((err: unknown) => {
        // pollRead's ApplicationFailure is a transient fault: past the deadline, the wait ends instead.
        if (!(err instanceof ApplicationFailure) || Date.now() < deadlineAt) throw err;
        return undefined;
      });
      if (status === undefined) {
        return { observation: { ...(since ?? { instanceId, statuses, observedAt: 0 }), polls }, outcome: 'timedOut' };
      }
      const now = Date.now();
      const changed = statuses[statuses.length - 1] !== status;
      const observation = { instanceId, statuses: changed ? [...statuses, status] : statuses, polls, observedAt: now };
      if (status === input.target) return { observation, outcome: 'reached' };
      // The poll due at the deadline is the last one.
      if (now >= deadlineAt) return { observation, outcome: 'timedOut' };
      const gap = instanceGapMs(since?.intervalMs ?? initialIntervalMs, n, maxIntervalMs);
      const delay = Math.max(1, Math.min(gap, deadlineAt - now));
      const next = { ...observation, nextPollAt: now + delay, intervalMs: Math.min(maxIntervalMs, gap * 2) };
      if (changed) return { observation: next, outcome: 'changed' };
      throw pollAgainIn(delay, `${instanceId} is ${status} (${polls} polls): next poll in ${delay} ms`, next);
    },
  };
}
export type Activities = ReturnType<typeof createInstanceActivities>;
