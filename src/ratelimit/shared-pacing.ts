// One rate limit per platform quota, kept by the Temporal server for every worker: each paced operation's submits
// run on their own task queue, whose rate limit carries the adaptive state (./pacing.ts) in its reason.
import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { type MediaOperation, quotaTaskQueue } from '@platform-ops/client';
import type { PlatformClient } from '../platform-client/client';
import type { RateLimitSettings } from '../config/settings';
import {
  AdaptivePacing,
  decodePacingReason,
  encodePacingReason,
  FULL_PACE,
  resolveLimits,
  type PacingState,
} from './pacing';

const ACTIVITY_QUEUE = temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;
// matching.numTaskqueueReadPartitions when the server does not say, and the most we believe.
const DEFAULT_PARTITIONS = 4;
const MAX_PARTITIONS = 64;
// gRPC UNIMPLEMENTED: a server older than the task queue config API (1.28).
const UNIMPLEMENTED = 12;

export type ServerPace = Awaited<ReturnType<typeof describeQuotaQueue>>;

/** Reads a quota task queue's limit from the server, and with `stats` its backlog (a costlier read). */
export async function describeQuotaQueue(client: Client, namespace: string, taskQueue: string, stats = false) {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: ACTIVITY_QUEUE,
    reportConfig: true,
    reportStats: stats,
  });
  const limit = res.config?.queueRateLimit;
  // Undefined: no limit set through the API (the worker-set one, if any, applies).
  const rps = limit?.rateLimit ? (limit.rateLimit.requestsPerSecond ?? 0) : undefined;
  const state = decodePacingReason(limit?.metadata?.reason);
  const backlog = res.stats?.approximateBacklogCount;
  const age = res.stats?.approximateBacklogAge;
  // Only with fairness or priority on (docs/fairness.md).
  const byPriority = Object.entries(res.statsByPriorityKey ?? {})
    .map(([key, st]) => ({ priorityKey: Number(key), backlog: Number(st.approximateBacklogCount ?? 0) }))
    .filter((p) => p.backlog > 0)
    .sort((a, b) => a.priorityKey - b.priorityKey);
  return {
    byPriority,
    ...(age ? { oldestWaitingS: Number(age.seconds ?? 0) + (age.nanos ?? 0) / 1e9 } : {}),
    rps,
    state,
    // A limit with a reason not ours: an operator set it by hand.
    setByOperator: rps !== undefined && state === undefined,
    ...(backlog !== undefined && backlog !== null ? { backlog: Number(backlog) } : {}),
  };
}

export async function queuePartitions(client: Client, namespace: string, taskQueue: string): Promise<number> {
  const res = await client.workflowService.listTaskQueuePartitions({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
  });
  const n = res.activityTaskQueuePartitions?.length ?? 0;
  if (n < 1 || n > MAX_PARTITIONS) throw new Error(`the server listed ${n} partitions`);
  return n;
}

function log(level: 'info' | 'warn', message: string, meta?: Record<string, unknown>): void {
  Runtime.instance().logger[level](message, meta);
}

export interface QuotaPace {
  operation: MediaOperation;
  taskQueue: string;
  /** Tasks per second the quota allows, before any slow-down; undefined: not paced. */
  targetRps?: number;
  state: PacingState;
  serverRps?: number;
  setByOperator?: boolean;
}

export type SubmitPacing = Pick<SharedPacing, 'holdRemainingMs' | 'rateLimited'>;

interface SharedPacingDeps {
  client: Client;
  namespace: string;
  /** The workflows' task queue; each operation's queue is derived from it. */
  taskQueue: string;
  platform: PlatformClient;
  settings: RateLimitSettings;
  identity?: string;
  onPace?: (pace: QuotaPace) => void;
}

export class SharedPacing {
  private readonly paces = new Map<MediaOperation, QuotaPace>();
  private readonly pacing: AdaptivePacing;
  private timers: NodeJS.Timeout[] = [];
  /** The server has no task queue config API: the worker-set limit alone paces, holds stay local. */
  private apiMissing = false;
  /** Queues given FAIRNESS_WEIGHTS: once each, the server keeps them. */
  private readonly weighted = new Set<string>();
  private readonly saidNoPace = new Set<string>();

  constructor(private readonly deps: SharedPacingDeps) {
    // A quiet quota window is what makes a 429 lone.
    this.pacing = new AdaptivePacing(deps.settings.RATE_LIMIT_WINDOW_SECONDS * 1000);
  }

  get enabled(): boolean {
    return this.deps.settings.RATE_LIMIT_PACING === 'on';
  }

  taskQueues(): Array<{ operation: MediaOperation; taskQueue: string }> {
    return [...this.paces.values()].map(({ operation, taskQueue }) => ({ operation, taskQueue }));
  }

  async start(): Promise<void> {
    await this.refreshLimits();
    await this.syncAll();
    const { RATE_LIMIT_REFRESH_SECONDS, RATE_LIMIT_SYNC_SECONDS } = this.deps.settings;
    this.timers = [
      setInterval(() => void this.refreshLimits().then(() => this.syncAll()), RATE_LIMIT_REFRESH_SECONDS * 1000),
      setInterval(() => void this.syncAll(true), RATE_LIMIT_SYNC_SECONDS * 1000),
    ];
    for (const t of this.timers) t.unref();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  /** The worker-set rate (maxTaskQueueActivitiesPerSecond): what paces a queue the API has not set. */
  workerRps(operation: MediaOperation): number | undefined {
    return this.enabled ? this.paces.get(operation)?.targetRps : undefined;
  }

  holdRemainingMs(operation: MediaOperation): number {
    const pace = this.paces.get(operation);
    return this.enabled && pace ? AdaptivePacing.holdRemainingMs(pace.state, Date.now()) : 0;
  }

  async rateLimited(operation: MediaOperation, retryAfterMs: number | undefined): Promise<void> {
    const pace = this.paces.get(operation);
    if (!this.enabled || !pace) return;
    // The freshest shared state first, so a decrease another worker just made is not undone.
    const server = await this.read(pace);
    const next = this.pacing.rateLimited(server?.state ?? pace.state, Date.now(), retryAfterMs);
    pace.state = next;
    log('warn', 'Platform rate limit met: slowing the shared pace', {
      operation,
      factor: next.factor,
      holdUntil: new Date(next.holdUntil).toISOString(),
    });
    if (!pace.setByOperator) await this.write(pace);
    this.deps.onPace?.(pace);
  }

  private async refreshLimits(): Promise<void> {
    let quotas;
    try {
      quotas = (await this.deps.platform.listQuotas({})).data;
    } catch (err) {
      // Keep the limits known so far; the next refresh tries again.
      this.warn('Could not read the quota list', err);
      if (this.paces.size > 0) return;
    }
    const { settings } = this.deps;
    const windowMs = settings.RATE_LIMIT_WINDOW_SECONDS * 1000;
    for (const limit of resolveLimits(quotas, settings.RATE_LIMIT_QUOTAS, this.deps.platform.config.paths)) {
      const previous = this.paces.get(limit.operation);
      const taskQueue = quotaTaskQueue(this.deps.taskQueue, limit.operation);
      const partitions = settings.RATE_LIMIT_QUEUE_PARTITIONS ?? (await this.readPartitions(taskQueue));
      const targetRps =
        limit.perWindow === undefined ? undefined : AdaptivePacing.targetRps(limit.perWindow, windowMs, partitions);
      if (limit.note) this.sayNoPace(limit.operation, limit.note, limit.unlisted === true);
      this.paces.set(limit.operation, {
        operation: limit.operation,
        taskQueue,
        targetRps,
        state: previous?.state ?? FULL_PACE,
        serverRps: previous?.serverRps,
      });
    }
  }

  /** Once per reason: a quota the list lacks is the platform's own answer (INFO); anything else is a WARN. */
  private sayNoPace(operation: string, note: string, expected: boolean): void {
    const key = `${operation}: ${note}`;
    if (this.saidNoPace.has(key)) return;
    this.saidNoPace.add(key);
    if (expected) log('info', `No pace for ${key}: submits are sent as they come, and a 429 slows them`);
    else log('warn', `No pace for ${key}: set RATE_LIMIT_QUOTAS to pace it (docs/rate-limits.md)`);
  }

  private async readPartitions(taskQueue: string): Promise<number> {
    try {
      return await queuePartitions(this.deps.client, this.deps.namespace, taskQueue);
    } catch (err) {
      this.warn(`Could not list the partitions of ${taskQueue}: pacing for the server's default, 4`, err);
      return DEFAULT_PARTITIONS;
    }
  }

  /**
   * Sets each queue's limit where it differs. `pacedOnly`: only queues with a pace to share; the others have
   * nothing on the server to keep in step between refreshes, and reading them often would only cost requests.
   */
  private async syncAll(pacedOnly = false): Promise<void> {
    if (pacedOnly && !this.enabled) return;
    const paces = [...this.paces.values()].filter((p) => !pacedOnly || p.targetRps !== undefined);
    await Promise.all(
      paces.map((pace) =>
        this.sync(pace).catch((err: unknown) => this.warn('Could not sync the shared pace', err, pace.operation)),
      ),
    );
  }

  private async sync(pace: QuotaPace): Promise<void> {
    const server = await this.read(pace);
    if (!this.enabled) {
      // Pacing off: a limit we set earlier is removed; an operator's stays.
      if (server?.state) await this.write(pace, true);
      return;
    }
    if (server?.state) pace.state = server.state;
    const next = this.pacing.recover(pace.state, Date.now());
    const changed = next !== pace.state;
    pace.state = next;
    if (!pace.setByOperator && (changed || !sameRps(pace.serverRps, this.desiredRps(pace)))) await this.write(pace);
    this.deps.onPace?.(pace);
  }

  private desiredRps(pace: QuotaPace): number | undefined {
    return pace.targetRps === undefined ? undefined : pace.targetRps * pace.state.factor;
  }

  private async read(pace: QuotaPace): Promise<{ state?: PacingState } | undefined> {
    if (this.apiMissing) return undefined;
    try {
      const server = await describeQuotaQueue(this.deps.client, this.deps.namespace, pace.taskQueue);
      pace.serverRps = server.rps;
      pace.setByOperator = server.setByOperator;
      return server;
    } catch (err) {
      this.noteApiMissing(err);
      return undefined;
    }
  }

  /** Sets the queue's limit to the current pace, or removes ours (`remove`, or nothing to pace by). */
  private async write(pace: QuotaPace, remove = false): Promise<void> {
    if (this.apiMissing) return;
    const rps = remove ? undefined : this.desiredRps(pace);
    try {
      await this.deps.client.workflowService.updateTaskQueueConfig({
        namespace: this.deps.namespace,
        identity: this.deps.identity ?? 'platform-ops worker',
        taskQueue: pace.taskQueue,
        taskQueueType: ACTIVITY_QUEUE,
        updateQueueRateLimit:
          rps === undefined
            ? { reason: 'platform-ops pacing off' }
            : { rateLimit: { requestsPerSecond: rps }, reason: encodePacingReason(pace.state) },
        ...(this.weighted.has(pace.taskQueue)
          ? {}
          : { setFairnessWeightOverrides: this.deps.settings.FAIRNESS_WEIGHTS }),
      });
      pace.serverRps = rps;
      this.weighted.add(pace.taskQueue);
    } catch (err) {
      this.noteApiMissing(err);
      if (!this.apiMissing) throw err;
    }
  }

  private warn(message: string, err: unknown, operation?: MediaOperation): void {
    const error = err instanceof Error ? err.message : String(err);
    log('warn', message, { ...(operation ? { operation } : {}), error });
  }

  private noteApiMissing(err: unknown): void {
    if ((err as { code?: unknown }).code !== UNIMPLEMENTED) throw err;
    if (!this.apiMissing) {
      log('warn', 'The Temporal server has no task queue config API: each worker sets the pace when it polls');
    }
    this.apiMissing = true;
  }
}

function sameRps(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // The server keeps a float32.
  return Math.abs(a - b) <= Math.max(1e-6, b * 1e-4);
}
