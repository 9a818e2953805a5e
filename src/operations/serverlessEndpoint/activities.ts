import { Context, log } from '@temporalio/activity';
import type { ActivityDeps } from '../activities-deps';
import {
  type Endpoint,
  type EndpointConfig,
  type EndpointWorkers,
  outsideEndpointLimits,
  type Resumed,
} from '@platform-ops/client';
import { answerPaidCall, madeByEarlierRun, resumedFrom, type AfterReset } from '../../activities/earlier-runs';
import { awaitPollTurn, findAfterEarlierAttempts, pollAgainIn, pollRead, sendCostly } from '../../activities/retries';
import type { CallOptions } from '../../platform-client/client';
import { PlatformError } from '../../platform-client/errors';

/** What the workflow keeps of an endpoint: never its config's environment values. */
export interface EndpointSnapshot {
  endpointId: string;
  gone: boolean;
  platformState: string;
  reason?: string;
  url?: string;
  workers: EndpointWorkers;
  /** Workers still coming up (pending, creating, pulling, starting) and workers that failed. */
  starting: number;
  failed: number;
}

export interface CreatedEndpoint {
  endpointId: string;
  alreadyApplied: boolean;
  resumed?: Resumed;
}

export interface PollEndpointInput {
  endpointId: string;
  target: 'serving' | 'gone';
  minWorkers: number;
  deadlineAt: number;
  intervalMs: number;
  /** Given: the wait answers `pending` with what it sees once this time passes, so that the run can show it. */
  reportAt?: number;
}

export interface EndpointCheckpoint {
  outcome: 'reached' | 'failed' | 'timedOut' | 'pending';
  snapshot: EndpointSnapshot;
}

const FAILED_STATES = new Set(['failed', 'error']);
const FAILED_WORKER_STATES = new Set(['failed', 'error']);
const STARTING_WORKER_STATES = new Set(['pending', 'creating', 'pulling', 'starting']);
const GONE_STATES = new Set(['terminating', 'deleted', 'stopped']);
const MAX_REASON = 500;

function snapshotOf(endpoint: Endpoint): EndpointSnapshot {
  const workers = endpoint.workers ?? [];
  const running = workers.filter((w) => w.state.state === 'running');
  const { state, error, message } = endpoint.state;
  const failedWorker = workers.find(
    (w) => FAILED_WORKER_STATES.has(w.state.state) && (w.state.error || w.state.message),
  );
  const why = [error, message].filter(Boolean).join(': ') || failedWorker?.state.error || failedWorker?.state.message;
  return {
    endpointId: endpoint.id,
    gone: false,
    platformState: state,
    ...(why && { reason: String(why).slice(0, MAX_REASON) }),
    ...(endpoint.url && { url: endpoint.url }),
    workers: { running: running.length, healthy: running.filter((w) => w.healthy).length, total: workers.length },
    starting: workers.filter((w) => STARTING_WORKER_STATES.has(w.state.state)).length,
    failed: workers.filter((w) => FAILED_WORKER_STATES.has(w.state.state)).length,
  };
}

const goneSnapshot = (endpointId: string): EndpointSnapshot => ({
  endpointId,
  gone: true,
  platformState: 'gone',
  workers: { running: 0, healthy: 0, total: 0 },
  starting: 0,
  failed: 0,
});

/**
 * Serving with its minimum healthy, and every worker up and healthy: a rolling update is over only then (old workers
 * may serve while the new ones run unhealthy).
 */
const rolledOut = (s: EndpointSnapshot, minWorkers: number) =>
  s.platformState === 'serving' &&
  s.workers.healthy >= minWorkers &&
  s.workers.running === s.workers.healthy &&
  s.starting === 0 &&
  s.failed === 0;

const notFound = (err: unknown) => err instanceof PlatformError && err.status === 404;

export function createServerlessEndpointActivities({ platform, temporal }: ActivityDeps) {
  const signal = () => Context.current().cancellationSignal;

  // Names are how a create is found again; one that is terminating no longer counts.
  async function findByName(name: string): Promise<Endpoint | undefined> {
    for await (const endpoint of platform.iterateEndpoints({ signal: signal() })) {
      if (endpoint.name === name && !GONE_STATES.has(endpoint.state.state)) return endpoint;
    }
    return undefined;
  }

  async function read(endpointId: string, opts: CallOptions = { signal: signal() }): Promise<EndpointSnapshot> {
    try {
      return snapshotOf((await platform.getEndpoint({ id: endpointId }, opts)).endpoint);
    } catch (err) {
      if (notFound(err)) return goneSnapshot(endpointId);
      throw err;
    }
  }

  return {
    /** Every way the config leaves the account's limit ranges or names no serverless product; free reads. */
    async checkEndpointConfig(config: EndpointConfig): Promise<{ problems: string[]; workerHourPrice?: number }> {
      const limits = await platform.endpointLimits({}, { signal: signal() });
      const problems = outsideEndpointLimits(config, limits);
      const productId = config.products[0].id;
      let product: Record<string, unknown> | undefined;
      for await (const p of platform.iterateProducts({ category: 'serverless' }, { signal: signal() })) {
        if (p.id === productId) {
          product = p;
          break;
        }
      }
      if (!product) problems.push(`products.0.id must name a serverless GPU product; "${productId}" is none`);
      const perCard = (product?.pricing as { postpaid?: { final_price?: unknown } } | undefined)?.postpaid?.final_price;
      const price = typeof perCard === 'number' ? perCard * config.workerConfig.gpuNum : undefined;
      return { problems, ...(price !== undefined && { workerHourPrice: price }) };
    },

    async findEndpoint(name: string): Promise<EndpointSnapshot | undefined> {
      const found = await findByName(name);
      return found && snapshotOf(found);
    },

    // The platform takes no idempotency key: a create is found again by its name, which the entity owns.
    async createEndpoint({ afterReset, config }: { config: EndpointConfig } & AfterReset): Promise<CreatedEndpoint> {
      const ctx = Context.current();
      const earlier = afterReset
        ? await madeByEarlierRun(temporal, ctx, {
            fromAnswer: (result: CreatedEndpoint) => result.endpointId,
            lookUp: async (made: { config: EndpointConfig }) => (await findByName(made.config.name))?.id,
          })
        : undefined;
      if (earlier) {
        const resumed = resumedFrom(ctx, earlier.earlier, `endpoint ${earlier.made}`);
        return answerPaidCall(temporal, ctx, { endpointId: earlier.made, alreadyApplied: true, resumed });
      }
      const found = await (ctx.info.attempt === 1
        ? findByName(config.name)
        : findAfterEarlierAttempts(ctx, platform, () => findByName(config.name)));
      if (found) {
        log.info('Endpoint already created', { endpointId: found.id, attempt: ctx.info.attempt });
        return { endpointId: found.id, alreadyApplied: true };
      }
      const { id } = await sendCostly(ctx, () => platform.createEndpoint({ endpoint: config }, { signal: signal() }));
      return answerPaidCall(temporal, ctx, { endpointId: id, alreadyApplied: false });
    },

    // The whole config again, so a repeat sends the same thing and does no harm.
    async updateEndpoint({ endpointId, config }: { endpointId: string; config: EndpointConfig }): Promise<void> {
      await platform.updateEndpoint({ id: endpointId, ...config }, { signal: signal() });
    },

    // A repeat after a lost answer may be refused (400) or not found: the endpoint is then gone or going.
    async deleteEndpoint(endpointId: string): Promise<void> {
      try {
        await platform.deleteEndpoint({ name: endpointId }, { signal: signal() });
      } catch (err) {
        if (!(err instanceof PlatformError) || err.retryable) throw err;
        const now = await read(endpointId);
        if (!now.gone && !GONE_STATES.has(now.platformState)) throw err;
      }
    },

    readEndpoint: (endpointId: string) => read(endpointId),

    /** One read per attempt; the next attempt is the next read, so a wait of any length is one activity. */
    async pollEndpoint(input: PollEndpointInput): Promise<EndpointCheckpoint> {
      const ctx = Context.current();
      const { endpointId, target, deadlineAt, intervalMs } = input;
      await awaitPollTurn(ctx, `endpoint ${endpointId}`, undefined, deadlineAt);
      const snapshot = await pollRead(
        ctx,
        platform,
        (opts) => read(endpointId, opts),
        () => intervalMs,
      );
      if (target === 'gone' ? snapshot.gone : rolledOut(snapshot, input.minWorkers)) {
        return { outcome: 'reached', snapshot };
      }
      // A worker that failed with none still coming up is a rollout that failed, even while old workers serve.
      const failed =
        snapshot.gone || FAILED_STATES.has(snapshot.platformState) || (snapshot.failed > 0 && !snapshot.starting);
      if (target === 'serving' && failed) return { outcome: 'failed', snapshot };
      if (Date.now() >= deadlineAt) return { outcome: 'timedOut', snapshot };
      const reportAt = input.reportAt ?? Infinity;
      if (Date.now() >= reportAt) return { outcome: 'pending', snapshot };
      const { platformState, workers } = snapshot;
      const delay = Math.max(1, Math.min(intervalMs, deadlineAt - Date.now(), reportAt - Date.now()));
      throw pollAgainIn(delay, `endpoint ${endpointId} is ${platformState}, ${workers.healthy} healthy`, snapshot);
    },
  };
}
export type Activities = ReturnType<typeof createServerlessEndpointActivities>;
