// GPU instances: known instances with a status; renew extends a subscription's expiry; restart, create,
// start, stop and delete pass through the platform's intermediate statuses (platform-notes) to their
// end status. A transition's phases are derived from its start time on the emulated clock, like tasks.
import type { FastifyInstance } from 'fastify';
import {
  CreateInstanceRequest,
  type CreateInstanceRequest as CreateRequest,
  InstanceActionRequest,
  InstanceId,
  ListInstancesRequest,
  type PlatformPaths,
  RenewInstanceBody,
} from '@platform-ops/client';
import type { EmulatorClock } from './clock';
import { DEMO_MEMBER_ID, type InstanceFixture, type InstanceSettings } from './fixtures';
import { hash32 } from './hash';
import { parseOr400, sendInvalid, sendPlatformError } from './http';

const DAY_MS = 86_400_000;
/** A renewal month, as the spec's billing treats it. */
const RENEW_MONTH_MS = 30 * DAY_MS;
const DEFAULT_PAGE = 20;

interface Transition {
  startedAt: number;
  /** Statuses passed through, each for its ms, before `final`. */
  phases: { status: string; ms: number }[];
  final: string;
}

interface InstanceState {
  fixture: InstanceFixture;
  memberId: string;
  /** Status when no transition is under way. */
  status: string;
  /** Expiry in emulated Unix ms; undefined for pay-as-you-go. */
  endAtMs?: number;
  transition?: Transition;
}

type Refusal = { error?: { reason: string; message: string } };

/** What each action accepts, the statuses it passes through and where it ends (platform-notes names). */
const ACTIONS = {
  restart: { from: ['running'], phases: ['toRestart', 'restarting'], final: 'running' },
  start: { from: ['exited'], phases: ['toStart', 'starting'], final: 'running' },
  stop: { from: ['running'], phases: ['toStop', 'stopping'], final: 'exited' },
  delete: {
    from: ['running', 'exited', 'toCreate', 'creating', 'pulling'],
    phases: ['toRemove', 'removing'],
    final: 'removed',
  },
} as const;
type Action = keyof typeof ACTIONS;

const GONE = new Set(['removed', 'removing', 'toRemove']);

export class InstanceStore {
  private readonly byId = new Map<string, InstanceState>();
  settings: InstanceSettings = { toRestartMs: 1_000, restartingMs: 5_000, lifecycleStepMs: 2_000 };
  private created = 0;

  constructor(private readonly clock: EmulatorClock) {}

  load(instances: readonly InstanceFixture[], settings: InstanceSettings): void {
    this.byId.clear();
    this.created = 0;
    this.settings = { ...settings };
    const now = this.clock.now();
    for (const f of instances) {
      let endAtMs: number | undefined;
      if (f.billingMode === 'subscription') {
        endAtMs = f.endTime !== undefined ? f.endTime * 1000 : now + (f.expiresInDays ?? 0) * DAY_MS;
      }
      this.byId.set(f.id, { fixture: f, memberId: f.memberId ?? DEMO_MEMBER_ID, status: f.status, endAtMs });
    }
  }

  private statusOf(inst: InstanceState, now: number): string {
    const t = inst.transition;
    if (!t) return inst.status;
    let at = t.startedAt;
    for (const phase of t.phases) {
      at += phase.ms;
      if (now < at) return phase.status;
    }
    // Done: fold the transition into the base status, so later reads skip the arithmetic.
    inst.transition = undefined;
    inst.status = t.final;
    return t.final;
  }

  /** The record the get-instance route answers (fields from the platform notes). */
  record(id: string): Record<string, unknown> | undefined {
    const inst = this.byId.get(id);
    if (!inst) return undefined;
    const f = inst.fixture;
    return {
      id: f.id,
      name: f.name,
      status: this.statusOf(inst, this.clock.now()),
      productId: f.productId,
      productName: f.productName,
      gpuNum: f.gpuNum,
      billingMode: f.billingMode,
      // Unix seconds; -1 for pay-as-you-go (platform notes).
      endTime: inst.endAtMs === undefined ? -1 : Math.floor(inst.endAtMs / 1000),
      statusError: f.statusError,
      memberId: inst.memberId,
    };
  }

  /** Renews by whole 30-day months from the later of the expiry and now; an error text if refused. */
  renew(id: string, months: number): Refusal {
    const inst = this.byId.get(id);
    if (!inst) return { error: notFound(id) };
    if (inst.endAtMs === undefined) {
      return {
        error: {
          reason: 'INSTANCE_NOT_SUBSCRIPTION',
          message: `instance ${id} is pay-as-you-go (endTime -1): only subscription instances can be renewed`,
        },
      };
    }
    const status = this.statusOf(inst, this.clock.now());
    if (GONE.has(status)) {
      return {
        error: { reason: 'INSTANCE_STATE_INVALID', message: `instance ${id} is ${status}: it cannot be renewed` },
      };
    }
    // An expired subscription restarts from now: renewing must buy time ahead, not time already past.
    inst.endAtMs = Math.max(inst.endAtMs, this.clock.now()) + months * RENEW_MONTH_MS;
    return {};
  }

  restart(id: string): Refusal {
    return this.act(id, 'restart');
  }

  /**
   * Starts, stops, deletes or restarts. A repeat of the same action while it is under way (the first
   * answer got lost) neither fails nor starts the sequence again; nor does one whose end is reached.
   */
  act(id: string, action: Action): Refusal {
    const inst = this.byId.get(id);
    if (!inst) return { error: notFound(id) };
    const spec = ACTIONS[action];
    const now = this.clock.now();
    const status = this.statusOf(inst, now);
    const phases: readonly string[] = spec.phases;
    if (phases.includes(status)) return {};
    if (status === spec.final && action !== 'restart') return {};
    if (!(spec.from as readonly string[]).includes(status)) {
      return {
        error: {
          reason: 'INSTANCE_STATE_INVALID',
          message: `instance ${id} is ${status}: ${action} needs it ${spec.from.join(' or ')}`,
        },
      };
    }
    const ms = (i: number) =>
      action === 'restart' ? [this.settings.toRestartMs, this.settings.restartingMs][i] : this.settings.lifecycleStepMs;
    inst.transition = {
      startedAt: now,
      phases: spec.phases.map((p, i) => ({ status: p, ms: ms(i) })),
      final: spec.final,
    };
    return {};
  }

  /** A new instance, owned by the calling key's member; it goes toCreate → creating → pulling → running. */
  create(req: CreateRequest, memberId: string): { instanceId: string } {
    const now = this.clock.now();
    const id = `inst-${(hash32(`${req.name}\u0000${now}\u0000${++this.created}`) >>> 0).toString(16)}-${this.created}`;
    const fixture: InstanceFixture = {
      id,
      name: req.name,
      status: 'toCreate',
      productId: req.productId,
      productName: req.productId,
      gpuNum: req.gpuNum,
      billingMode: req.billingMode,
      statusError: null,
      memberId,
    };
    const step = this.settings.lifecycleStepMs;
    this.byId.set(id, {
      fixture,
      memberId,
      status: 'toCreate',
      endAtMs: req.billingMode === 'subscription' ? now + (req.months ?? 1) * RENEW_MONTH_MS : undefined,
      transition: {
        startedAt: now,
        phases: ['toCreate', 'creating', 'pulling'].map((status) => ({ status, ms: step })),
        final: 'running',
      },
    });
    return { instanceId: id };
  }

  /** One page of records in id order, optionally one member's; the cursor is the last id of the page. */
  page(opts: { memberId?: string; limit?: number; cursor?: string }): {
    data: Record<string, unknown>[];
    next_cursor: string;
    has_more: boolean;
  } {
    const ids = [...this.byId.values()]
      .filter((i) => opts.memberId === undefined || i.memberId === opts.memberId)
      .map((i) => i.fixture.id)
      .sort()
      .filter((id) => !opts.cursor || id > opts.cursor);
    const limit = opts.limit ?? DEFAULT_PAGE;
    const data = ids.slice(0, limit).map((id) => this.record(id)!);
    const hasMore = ids.length > limit;
    return { data, has_more: hasMore, next_cursor: hasMore ? String(data[data.length - 1].id) : '' };
  }

  list(): Record<string, unknown>[] {
    return [...this.byId.keys()].map((id) => this.record(id)!);
  }
}

const notFound = (id: string) => ({ reason: 'RESOURCE_NOT_FOUND', message: `instance ${id} not found` });

/** Query strings are strings: the list's `limit` as the number its schema wants. */
const numericLimit = (query: Record<string, unknown>) =>
  typeof query.limit === 'string' && /^\d+$/.test(query.limit) ? { ...query, limit: Number(query.limit) } : query;

export function registerInstanceRoutes(
  app: FastifyInstance,
  deps: { instances: InstanceStore; paths: PlatformPaths },
): void {
  const { instances, paths } = deps;
  // The GPU API answers "not found" with 400 (platform notes), so every refusal here is a 400.
  const refuse = (reply: Parameters<typeof sendPlatformError>[0], e: { reason: string; message: string }) =>
    sendPlatformError(reply, 400, e.reason, e.message);

  app.put<{ Params: { instance_id: string } }>(
    paths.renewInstance.replace('{instance_id}', ':instance_id'),
    (request, reply) => {
      const id = InstanceId.safeParse(request.params.instance_id);
      if (!id.success) return sendInvalid(reply, [{ field: 'instanceId', rule: idRule(request.params.instance_id) }]);
      const body = parseOr400(reply, RenewInstanceBody, request.body);
      if (!body) return reply;
      const { error } = instances.renew(id.data, body.months);
      return error ? refuse(reply, error) : reply.send({});
    },
  );

  app.post(paths.restartInstance, (request, reply) => {
    const body = parseOr400(reply, InstanceActionRequest, request.body);
    if (!body) return reply;
    const { error } = instances.restart(body.instanceId);
    return error ? refuse(reply, error) : reply.send({});
  });

  app.get(paths.getInstance, (request, reply) => {
    const query = parseOr400(reply, InstanceActionRequest, request.query);
    if (!query) return reply;
    const record = instances.record(query.instanceId);
    return record ? reply.send(record) : refuse(reply, notFound(query.instanceId));
  });

  app.post(paths.createInstance, (request, reply) => {
    const body = parseOr400(reply, CreateInstanceRequest, request.body);
    if (!body) return reply;
    return reply.send(instances.create(body, request.caller.memberId));
  });

  app.get(paths.listInstances, (request, reply) => {
    const query = parseOr400(reply, ListInstancesRequest, numericLimit(request.query as Record<string, unknown>));
    if (!query) return reply;
    return reply.send(instances.page(query));
  });

  for (const [action, path] of [
    ['start', paths.startInstance],
    ['stop', paths.stopInstance],
    ['delete', paths.deleteInstance],
  ] as const) {
    app.post(path, (request, reply) => {
      const body = parseOr400(reply, InstanceActionRequest, request.body);
      if (!body) return reply;
      const { error } = instances.act(body.instanceId, action);
      return error ? refuse(reply, error) : reply.send({});
    });
  }
}

function idRule(id: string): string {
  return id.length === 0 ? 'must not be empty' : 'must be at most 255 characters long';
}
