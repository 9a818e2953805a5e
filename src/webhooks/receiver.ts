// The webhook receiver: one route, POST /task-callback?workflow=…&generation=…&token=…. A callback is
// checked (its token, its body against the task-result schema, its task id) and sent to its workflow
// as the taskCallback signal; every refusal is a 4xx naming the rule, changes nothing and is counted.
// Runs in the worker (WEBHOOK_LISTEN) or on its own (./main.ts).
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { z } from 'zod';
import { taskCallbackSignal } from '../workflows/media/contract';
import { isTerminalTaskStatus } from '../platform/schemas/media';
import { formatIssues, tryParse } from '../platform/validation';
import { parseCallbackBody } from './callback-body';
import { CallbackGuard } from './guard';
import type { CallbackMetrics, RejectedReason } from './metrics';
import { TASK_CALLBACK_PATH, type CallbackSigner } from './token';

export interface ReceiverDeps {
  /** Signals the workflows: a client of the namespace the tokens were made for. */
  client: Client;
  signer: CallbackSigner;
  metrics: CallbackMetrics;
  maxBodyBytes: number;
  guard?: CallbackGuard;
  /** Told of failures that are ours, not the sender's (Temporal unreachable). Never given the token. */
  warn?: (message: string, meta: Record<string, unknown>) => void;
}

const Address = z.strictObject({
  workflow: z.string().min(1).max(1_000),
  generation: z.coerce.number().int().min(1).max(1_000),
  token: z.string().min(1).max(128),
});

/** Seconds a flooded URL should wait; the platform retries on its own schedule anyway. */
const FLOOD_RETRY_AFTER_S = 10;

export function buildCallbackReceiver(deps: ReceiverDeps): FastifyInstance {
  const guard = deps.guard ?? new CallbackGuard();
  const app = Fastify({ logger: false, bodyLimit: deps.maxBodyBytes, forceCloseConnections: true });

  const refuse = (reply: FastifyReply, status: number, reason: RejectedReason, message: string) => {
    deps.metrics.rejected(reason);
    return reply.code(status).send({ error: reason, message });
  };

  // Body parser refusals (too large, not JSON) come here, before the route.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.statusCode === 413) {
      return refuse(reply, 413, 'too_large', `the callback body is larger than ${deps.maxBodyBytes} bytes`);
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return refuse(reply, 400, 'malformed_body', `the callback body must be JSON (${error.message})`);
    }
    deps.warn?.('Webhook receiver failed', { error: error.message });
    return reply.code(500).send({ error: 'internal', message: 'the receiver failed; send again' });
  });

  app.post(TASK_CALLBACK_PATH, async (request, reply) => {
    const address = tryParse(Address, request.query);
    if (!address.ok) {
      return refuse(reply, 400, 'bad_address', `the callback URL is not one of ours: ${formatIssues(address.issues)}`);
    }
    const { workflow: workflowId, generation, token } = address.value;
    const target = { workflowId, generation };
    if (!deps.signer.verify(target, token)) {
      return refuse(reply, 401, 'bad_token', 'token: does not match the callback URL');
    }
    const url = `${workflowId}\n${generation}`;
    if (!guard.admit(url)) {
      void reply.header('retry-after', String(FLOOD_RETRY_AFTER_S));
      return refuse(reply, 429, 'flood', 'too many callbacks for this task; send again later');
    }
    const parsed = parseCallbackBody(request.body, generation);
    if (!parsed.ok) return refuse(reply, 400, 'malformed_body', formatIssues(parsed.issues));
    const { callback } = parsed;
    if (!isTerminalTaskStatus(callback.status)) {
      // Only an end is acted on; a progress report is taken and dropped.
      deps.metrics.received('not_terminal');
      return reply.send({ ok: true, ignored: `${callback.status} is not an end` });
    }
    const delivery = `${url}\n${callback.taskId}`;
    if (guard.wasDelivered(delivery)) {
      return refuse(reply, 409, 'replay', `the end of task ${callback.taskId} was delivered already`);
    }
    if (!guard.enter()) {
      void reply.header('retry-after', '1');
      return refuse(reply, 429, 'flood', 'too many callbacks at once; send again shortly');
    }
    // Marked before the signal, so a copy arriving meanwhile is a replay too; forgotten if it fails.
    guard.markDelivered(delivery);
    try {
      const handle = deps.client.workflow.getHandle(workflowId);
      try {
        await handle.signal(taskCallbackSignal, callback);
        deps.metrics.received('delivered');
        return await reply.send({ ok: true });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        if (!(await workflowExists(handle))) {
          guard.forget(delivery);
          return await refuse(
            reply,
            404,
            'unknown_task',
            `no workflow ${workflowId} waits for task ${callback.taskId}`,
          );
        }
        // A late callback (the workflow found the end by polling and finished): nothing to do.
        deps.metrics.received('workflow_closed');
        return await reply.send({ ok: true, ignored: `workflow ${workflowId} has ended` });
      }
    } catch (err) {
      guard.forget(delivery);
      deps.warn?.('Could not signal a task callback', {
        workflowId,
        taskId: callback.taskId,
        error: err instanceof Error ? err.message : String(err),
      });
      return reply.code(503).send({ error: 'unavailable', message: 'could not deliver the callback; send again' });
    } finally {
      guard.leave();
    }
  });
  return app;
}

/** Whether a workflow id that refused a signal exists at all (then it has ended). */
async function workflowExists(handle: { describe(): Promise<unknown> }): Promise<boolean> {
  try {
    await handle.describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export interface RunningReceiver {
  /** http://host:port of the listening socket. */
  url: string;
  close(): Promise<void>;
}

export async function startCallbackReceiver(
  deps: ReceiverDeps,
  listen: { host: string; port: number },
): Promise<RunningReceiver> {
  const app = buildCallbackReceiver(deps);
  await app.listen(listen);
  const { port } = app.server.address() as AddressInfo;
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => app.close() };
}
