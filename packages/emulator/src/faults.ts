// Fault injection per route: 5xx, 429, added latency, hung requests, connection resets, malformed
// bodies and bodies cut off half-way. Applied in an onRequest hook before auth and validation, as a
// network or gateway would; never to the admin API or the health check, and to output files only when
// a config names `outputFile` (an outage of the API need not take the file store down).
import { setTimeout as delay } from 'node:timers/promises';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ValidationIssue } from '@platform-ops/client';
import type { Counters } from './counters';
import { sendPlatformError } from './http';
import type { RouteInfo, RouteTable } from './routes';

const Rate = z.number().min(0).max(1);

const STATUS_5XX_REASONS = {
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const;

const FaultSpecSchema = z
  .strictObject({
    /** Share of requests answered with a 5xx platform error (status5xx, default 500). */
    errorRate5xx: Rate.optional(),
    /** Share of requests answered 429 RATE_LIMIT_EXCEEDED with Retry-After (retryAfterSeconds, default 1). */
    rate429: Rate.optional(),
    /** Real milliseconds added before the request is handled (not scaled by the clock: it is network time). */
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    /** Share of requests never answered: the socket is held until the client gives up. */
    hangRate: Rate.optional(),
    /** Share of requests whose connection is reset (TCP RST) without an answer. */
    resetRate: Rate.optional(),
    /** Share of requests handled normally but answered 200 with a truncated, invalid JSON body. */
    malformedRate: Rate.optional(),
    /**
     * Share of requests handled normally whose answer is cut off half-way: the headers promise the
     * whole body, half of it is sent, then the connection is destroyed (a download cut off mid-file).
     */
    cutRate: Rate.optional(),
    status5xx: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    /** Applies to the next `count` requests of the route only, then the entry is gone. */
    count: z.number().int().min(1).optional(),
  })
  .superRefine((spec, ctx) => {
    const rates = [
      spec.errorRate5xx,
      spec.rate429,
      spec.hangRate,
      spec.resetRate,
      spec.malformedRate,
      spec.cutRate,
    ].map((r) => r ?? 0);
    // A rate already refused on its own field needs no second message about the sum.
    if (rates.some((r) => !(r >= 0 && r <= 1))) return;
    const sum = rates.reduce((a, b) => a + b, 0);
    // The outcomes are exclusive results of one draw per request, so their shares cannot exceed 1.
    if (sum > 1 + 1e-9) {
      ctx.addIssue({
        code: 'custom',
        message: `errorRate5xx + rate429 + hangRate + resetRate + malformedRate + cutRate must be at most 1 (is ${sum})`,
      });
    }
  });
type FaultSpec = z.infer<typeof FaultSpecSchema>;

export const FaultConfigSchema = z.strictObject({ routes: z.record(z.string(), FaultSpecSchema) });
export type FaultConfig = z.infer<typeof FaultConfigSchema>;

interface Entry {
  spec: FaultSpec;
  /** Requests left for a counted entry. */
  remaining?: number;
}

export class FaultStore {
  private readonly entries = new Map<string, Entry>();
  private readonly hung = new Set<Socket>();
  private readonly malformed = new WeakSet<FastifyRequest>();
  private readonly cut = new WeakSet<FastifyRequest>();
  /** Requests whose fault waits for preValidation (the ones with added latency). */
  private readonly delayed = new WeakMap<FastifyRequest, FaultSpec>();

  constructor(
    private readonly table: RouteTable,
    private readonly counters: Counters,
  ) {}

  /** Route keys a config names that no route answers to (each a 400 issue). */
  unknownKeys(config: FaultConfig): ValidationIssue[] {
    return Object.keys(config.routes)
      .filter((key) => !this.table.faultKeys.has(key))
      .map((key) => ({
        field: `routes.${key}`,
        rule: `is not a route key (use one of ${[...this.table.faultKeys].map((k) => JSON.stringify(k)).join(', ')})`,
      }));
  }

  /** Replaces every fault. */
  set(config: FaultConfig): void {
    this.entries.clear();
    for (const [key, spec] of Object.entries(config.routes)) {
      this.entries.set(key, { spec, remaining: spec.count });
    }
  }

  clear(): void {
    this.entries.clear();
  }

  view(): { routes: Record<string, FaultSpec & { remaining?: number }> } {
    const routes: Record<string, FaultSpec & { remaining?: number }> = {};
    for (const [key, e] of this.entries)
      routes[key] = { ...e.spec, ...(e.remaining !== undefined ? { remaining: e.remaining } : {}) };
    return { routes };
  }

  /** Frees every held socket (reset and close must not wait for clients that never give up). */
  releaseHung(): void {
    for (const socket of this.hung) socket.destroy();
    this.hung.clear();
  }

  /**
   * The entry for a route: its key first, then its aliases, then `*` (platform routes only); a counted
   * entry is used up.
   */
  private pick(route: RouteInfo): FaultSpec | undefined {
    let key: string | undefined;
    if (this.entries.has(route.key)) key = route.key;
    else
      key =
        route.aliases.find((a) => this.entries.has(a)) ??
        (route.kind === 'platform' && this.entries.has('*') ? '*' : undefined);
    if (key === undefined) return undefined;
    const entry = this.entries.get(key)!;
    if (entry.remaining !== undefined) {
      entry.remaining--;
      if (entry.remaining <= 0) this.entries.delete(key);
    }
    return entry.spec;
  }

  /**
   * onRequest hook: draws the fault of the route's entry. A fault with added latency is deferred to
   * preValidation (see there); the others happen here, before auth, as a network or gateway would.
   */
  readonly onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Fast path: no faults configured, nothing to draw (task-result polling runs through here).
    if (this.entries.size === 0) return;
    const route = request.routeOptions.config.emulatorRoute;
    if (!route || (route.kind !== 'platform' && route.kind !== 'files')) return;
    const spec = this.pick(route);
    if (!spec) return;
    if (spec.latencyMs) {
      this.delayed.set(request, spec);
      return;
    }
    await this.apply(spec, route.key, request, reply);
  };

  /**
   * preValidation hook: the latency of a delayed fault, then its outcome. It waits here, once the body
   * is read, because fastify drops a request whose client left before its body was parsed: a slow
   * platform must still act on what it received (the "timed out but applied" case clients must survive).
   */
  readonly preValidation = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const spec = this.delayed.get(request);
    if (!spec) return;
    this.delayed.delete(request);
    const key = request.routeOptions.config.emulatorRoute?.key ?? 'unknown';
    this.counters.fault('latency', key);
    await delay(spec.latencyMs ?? 0);
    await this.apply(spec, key, request, reply);
  };

  /** One draw decides the outcome; the rates are consecutive slices of [0, 1). */
  private async apply(spec: FaultSpec, routeKey: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let r = Math.random();
    const take = (rate: number | undefined): boolean => {
      if (!rate) return false;
      if (r < rate) return true;
      r -= rate;
      return false;
    };
    if (take(spec.hangRate)) {
      this.counters.fault('hang', routeKey);
      const socket = request.raw.socket;
      reply.hijack();
      this.hung.add(socket);
      socket.once('close', () => this.hung.delete(socket));
      return;
    }
    if (take(spec.resetRate)) {
      this.counters.fault('reset', routeKey);
      reply.hijack();
      request.raw.socket.resetAndDestroy();
      return;
    }
    if (take(spec.errorRate5xx)) {
      this.counters.fault('error5xx', routeKey);
      const status = spec.status5xx ?? 500;
      await sendPlatformError(
        reply,
        status,
        STATUS_5XX_REASONS[status],
        `injected fault: HTTP ${status} on ${routeKey}`,
      );
      return;
    }
    if (take(spec.rate429)) {
      this.counters.fault('rate429', routeKey);
      this.counters.rateLimited();
      const retryAfter = spec.retryAfterSeconds ?? 1;
      reply.header('retry-after', String(retryAfter));
      await sendPlatformError(reply, 429, 'RATE_LIMIT_EXCEEDED', `injected fault: rate limit exceeded on ${routeKey}`, {
        retry_after_seconds: retryAfter,
      });
      return;
    }
    if (take(spec.malformedRate)) {
      this.counters.fault('malformed', routeKey);
      this.malformed.add(request);
      return;
    }
    if (take(spec.cutRate)) {
      this.counters.fault('cut', routeKey);
      this.cut.add(request);
    }
  }

  /**
   * onSend hook: a request drawn for a malformed answer gets 200 and the first half of its body; one
   * drawn for a cut answer gets its status and headers, the full length announced, and half the body
   * before the connection drops.
   */
  readonly onSend = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (err: null, p: unknown) => void,
  ): void => {
    if (this.cut.has(request) && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
      reply.header('content-length', String(body.length));
      // Once the half is handed to the network, the connection goes, as a dropped link would.
      reply.raw.once('finish', () => request.raw.socket.destroy());
      // A stream: fastify would set a Buffer's own length over the announced one.
      done(null, Readable.from([body.subarray(0, Math.max(1, Math.floor(body.length / 2)))]));
      return;
    }
    if (!this.malformed.has(request)) {
      done(null, payload);
      return;
    }
    reply.code(200).header('content-type', 'application/json; charset=utf-8');
    const text =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '{"data":[';
    // Any proper prefix of a JSON object or array is invalid JSON.
    done(null, text.slice(0, Math.max(1, Math.floor(text.length / 2))));
  };
}
