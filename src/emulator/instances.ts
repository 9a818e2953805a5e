// GPU instances: known instances with a status; renew extends a subscription's expiry, restart passes
// through toRestart and restarting to running. A restart's phases are derived from its start time on
// the emulated clock, like tasks.
import type { FastifyInstance } from 'fastify';
import type { PlatformPaths } from '../platform/paths';
import { GetInstanceRequest, InstanceId, RenewInstanceBody, RestartInstanceRequest } from '../platform/schemas/gpu';
import type { EmulatorClock } from './clock';
import type { InstanceFixture, InstanceSettings } from './fixtures';
import { parseOr400, sendInvalid, sendPlatformError } from './http';

const DAY_MS = 86_400_000;
/** A renewal month, as the spec's billing treats it. */
const RENEW_MONTH_MS = 30 * DAY_MS;

interface InstanceState {
  fixture: InstanceFixture;
  /** Status when no restart is under way. */
  status: string;
  /** Expiry in emulated Unix ms; undefined for pay-as-you-go. */
  endAtMs?: number;
  restart?: { startedAt: number; toRestartMs: number; restartingMs: number };
}

/** Statuses a restart is accepted from (a restart of a restarting instance is a no-op). */
const RESTARTABLE = new Set(['running']);

export class InstanceStore {
  private readonly byId = new Map<string, InstanceState>();
  settings: InstanceSettings = { toRestartMs: 1_000, restartingMs: 5_000 };

  constructor(private readonly clock: EmulatorClock) {}

  load(instances: readonly InstanceFixture[], settings: InstanceSettings): void {
    this.byId.clear();
    this.settings = { ...settings };
    const now = this.clock.now();
    for (const f of instances) {
      let endAtMs: number | undefined;
      if (f.billingMode === 'subscription') {
        endAtMs = f.endTime !== undefined ? f.endTime * 1000 : now + (f.expiresInDays ?? 0) * DAY_MS;
      }
      this.byId.set(f.id, { fixture: f, status: f.status, endAtMs });
    }
  }

  private statusOf(inst: InstanceState, now: number): string {
    const r = inst.restart;
    if (!r) return inst.status;
    const t = now - r.startedAt;
    if (t < r.toRestartMs) return 'toRestart';
    if (t < r.toRestartMs + r.restartingMs) return 'restarting';
    // Done: fold the restart into the base status, so later reads skip the arithmetic.
    inst.restart = undefined;
    inst.status = 'running';
    return 'running';
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
    };
  }

  /** Renews by whole 30-day months from the later of the expiry and now; an error text if refused. */
  renew(id: string, months: number): { error?: { reason: string; message: string } } {
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
    if (status === 'removed' || status === 'removing' || status === 'toRemove') {
      return {
        error: { reason: 'INSTANCE_STATE_INVALID', message: `instance ${id} is ${status}: it cannot be renewed` },
      };
    }
    // An expired subscription restarts from now: renewing must buy time ahead, not time already past.
    inst.endAtMs = Math.max(inst.endAtMs, this.clock.now()) + months * RENEW_MONTH_MS;
    return {};
  }

  restart(id: string): { error?: { reason: string; message: string } } {
    const inst = this.byId.get(id);
    if (!inst) return { error: notFound(id) };
    const now = this.clock.now();
    const status = this.statusOf(inst, now);
    // A retried restart (the first answer got lost) must not fail nor start the sequence again.
    if (status === 'toRestart' || status === 'restarting') return {};
    if (!RESTARTABLE.has(status)) {
      return {
        error: {
          reason: 'INSTANCE_STATE_INVALID',
          message: `instance ${id} is ${status}: only a running instance can be restarted`,
        },
      };
    }
    inst.restart = { startedAt: now, ...this.settings };
    return {};
  }

  list(): Record<string, unknown>[] {
    return [...this.byId.keys()].map((id) => this.record(id)!);
  }
}

const notFound = (id: string) => ({ reason: 'RESOURCE_NOT_FOUND', message: `instance ${id} not found` });

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
    const body = parseOr400(reply, RestartInstanceRequest, request.body);
    if (!body) return reply;
    const { error } = instances.restart(body.instanceId);
    return error ? refuse(reply, error) : reply.send({});
  });

  app.get(paths.getInstance, (request, reply) => {
    const query = parseOr400(reply, GetInstanceRequest, request.query);
    if (!query) return reply;
    const record = instances.record(query.instanceId);
    return record ? reply.send(record) : refuse(reply, notFound(query.instanceId));
  });
}

function idRule(id: string): string {
  return id.length === 0 ? 'must not be empty' : 'must be at most 255 characters long';
}
