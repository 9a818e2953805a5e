// The webhook receiver: a checked callback becomes its workflow's taskCallback signal; every refusal is a 4xx
// naming the rule, changes nothing and is counted (docs/webhooks.md). In the worker or on its own (./main.ts).
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import Fastify, { type FastifyError, type FastifyReply } from 'fastify';
import { z } from 'zod';
import type { WebhookSettings } from '../config/settings';
import {
  formatIssues,
  isTerminalTaskStatus,
  outputsOf,
  TaskCallback,
  taskCallbackSignal,
  TaskResult,
  tryParse,
  type ValidationIssue,
} from '@platform-ops/client';
import { CallbackSigner, TASK_CALLBACK_PATH } from './token';

type RejectedReason =
  'bad_token' | 'bad_address' | 'malformed_body' | 'too_large' | 'unknown_task' | 'replay' | 'flood';

const DEFAULT_GUARD_LIMITS = {
  maxRemembered: 100_000,
  // The platform sends one callback and up to 5 retries per task; a few duplicates on top are fine.
  burstPerUrl: 10,
  refillMsPerUrl: 10_000,
  maxInFlight: 256,
};

/** Insertion order is age: past `max` entries, the oldest goes. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

/** Deliveries made, a token bucket per URL and the signals in flight, bounded; lost on a restart, harmlessly. */
export class CallbackGuard {
  private readonly delivered = new Map<string, true>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private inFlight = 0;

  constructor(
    private readonly limits: typeof DEFAULT_GUARD_LIMITS = DEFAULT_GUARD_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  admit(url: string): boolean {
    const now = this.now();
    const b = this.buckets.get(url) ?? { tokens: this.limits.burstPerUrl, at: now };
    const tokens = Math.min(this.limits.burstPerUrl, b.tokens + (now - b.at) / this.limits.refillMsPerUrl);
    const ok = tokens >= 1;
    remember(this.buckets, url, { tokens: ok ? tokens - 1 : tokens, at: now }, this.limits.maxRemembered);
    return ok;
  }

  wasDelivered(delivery: string): boolean {
    return this.delivered.has(delivery);
  }

  markDelivered(delivery: string): void {
    remember(this.delivered, delivery, true, this.limits.maxRemembered);
  }

  forget(delivery: string): void {
    this.delivered.delete(delivery);
  }

  enter(): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return false;
    this.inFlight++;
    return true;
  }

  leave(): void {
    this.inFlight--;
  }
}

const CallbackBody = z.looseObject({ event_type: z.literal('ASYNC_TASK_RESULT'), payload: TaskResult });

export function parseCallbackBody(
  body: unknown,
  generation: number,
): { ok: true; callback: TaskCallback } | { ok: false; issues: ValidationIssue[] } {
  const parsed = tryParse(CallbackBody, body);
  if (!parsed.ok) return parsed;
  const { task, extra } = parsed.value.payload;
  const signal = tryParse(TaskCallback, {
    taskId: task.task_id,
    generation,
    status: task.status,
    reason: task.reason || undefined,
    outputs: outputsOf(parsed.value.payload),
    nsfwDetection: extra?.enable_nsfw_detection === true,
  });
  if (!signal.ok) {
    const where: Record<string, string> = { taskId: 'payload.task.task_id', status: 'payload.task.status' };
    const issues = signal.issues.map((i) => ({ ...i, field: where[i.field] ?? `payload (${i.field})` }));
    return { ok: false, issues };
  }
  return { ok: true, callback: signal.value };
}

export type RunningReceiver = NonNullable<Awaited<ReturnType<typeof serveCallbacks>>>;

const Address = z.strictObject({
  workflow: z.string().min(1).max(1_000),
  generation: z.coerce.number().int().min(1).max(1_000),
  token: z.string().min(1).max(128),
});

const FLOOD_RETRY_AFTER_S = 10;

/** Starts the receiver when WEBHOOK_LISTEN is set; `client` signals the tokens' namespace. Logs never hold a token. */
export async function serveCallbacks(settings: WebhookSettings, client: Client, namespace: string) {
  if (!settings.WEBHOOK_LISTEN || !settings.WEBHOOK_SECRET) return undefined;
  const signer = new CallbackSigner(settings.WEBHOOK_SECRET, namespace);
  const maxBodyBytes = settings.WEBHOOK_MAX_BODY_KB * 1024;
  const { logger, metricMeter } = Runtime.instance();
  const counter = (name: string, description: string) => metricMeter.createCounter(name, 'callbacks', description);
  const received = counter('platform_ops_webhook_callbacks_received', 'Task callbacks taken, by outcome');
  const rejected = counter('platform_ops_webhook_callbacks_rejected', 'Task callbacks refused with a 4xx, by reason');
  const guard = new CallbackGuard();
  const app = Fastify({ logger: false, bodyLimit: maxBodyBytes, forceCloseConnections: true });
  const refuse = (reply: FastifyReply, status: number, reason: RejectedReason, message: string) => {
    rejected.add(1, { reason });
    return reply.code(status).send({ error: reason, message });
  };

  // Body parser refusals (too large, not JSON) come here, before the route.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.statusCode === 413) {
      return refuse(reply, 413, 'too_large', `the callback body is larger than ${maxBodyBytes} bytes`);
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return refuse(reply, 400, 'malformed_body', `the callback body must be JSON (${error.message})`);
    }
    logger.warn('Webhook receiver failed', { error: error.message });
    return reply.code(500).send({ error: 'internal', message: 'the receiver failed; send again' });
  });

  app.post(TASK_CALLBACK_PATH, async (request, reply) => {
    const address = tryParse(Address, request.query);
    if (!address.ok) {
      return refuse(reply, 400, 'bad_address', `the callback URL is not one of ours: ${formatIssues(address.issues)}`);
    }
    const { workflow: workflowId, generation, token } = address.value;
    if (!signer.verify({ workflowId, generation }, token)) {
      return refuse(reply, 401, 'bad_token', 'token: does not match the callback URL');
    }
    const url = `${workflowId}\n${generation}`;
    if (!guard.admit(url)) {
      const later = 'too many callbacks for this task; send again later';
      return refuse(reply.header('retry-after', String(FLOOD_RETRY_AFTER_S)), 429, 'flood', later);
    }
    const parsed = parseCallbackBody(request.body, generation);
    if (!parsed.ok) return refuse(reply, 400, 'malformed_body', formatIssues(parsed.issues));
    const { callback } = parsed;
    if (!isTerminalTaskStatus(callback.status)) {
      // Only an end is acted on; a progress report is taken and dropped.
      received.add(1, { outcome: 'not_terminal' });
      return reply.send({ ok: true, ignored: `${callback.status} is not an end` });
    }
    const delivery = `${url}\n${callback.taskId}`;
    if (guard.wasDelivered(delivery)) {
      return refuse(reply, 409, 'replay', `the end of task ${callback.taskId} was delivered already`);
    }
    if (!guard.enter()) {
      return refuse(reply.header('retry-after', '1'), 429, 'flood', 'too many callbacks at once; send again shortly');
    }
    // Marked before the signal, so a copy arriving meanwhile is a replay too; forgotten if it fails.
    guard.markDelivered(delivery);
    try {
      const handle = client.workflow.getHandle(workflowId);
      try {
        await handle.signal(taskCallbackSignal, callback);
        received.add(1, { outcome: 'delivered' });
        return await reply.send({ ok: true });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        try {
          await handle.describe();
        } catch (e) {
          // The workflow does not exist at all (one that does has ended).
          if (!(e instanceof WorkflowNotFoundError)) throw e;
          guard.forget(delivery);
          const message = `no workflow ${workflowId} waits for task ${callback.taskId}`;
          return await refuse(reply, 404, 'unknown_task', message);
        }
        // A late callback (the workflow found the end by polling and finished): nothing to do.
        received.add(1, { outcome: 'workflow_closed' });
        return await reply.send({ ok: true, ignored: `workflow ${workflowId} has ended` });
      }
    } catch (err) {
      guard.forget(delivery);
      logger.warn('Could not signal a task callback', {
        workflowId,
        taskId: callback.taskId,
        error: err instanceof Error ? err.message : String(err),
      });
      return reply.code(503).send({ error: 'unavailable', message: 'could not deliver the callback; send again' });
    } finally {
      guard.leave();
    }
  });
  await app.listen(settings.WEBHOOK_LISTEN);
  const { port } = app.server.address() as AddressInfo;
  const { host: listenHost } = settings.WEBHOOK_LISTEN;
  const host = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => app.close() };
}
