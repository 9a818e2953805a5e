// Webhook settings from the environment, checked with zod (docs/configuration.md#webhooks). Without
// WEBHOOK_PUBLIC_URL nothing changes: submits carry no callback URL and tasks are polled as before.
import { z } from 'zod';
import { HttpUrl } from '../platform/schemas/common';
import { parseConfig } from '../platform-client/config';

/** host:port, or a bare port (all interfaces). */
const Listen = z
  .string()
  .trim()
  .regex(/^(?:(?:[a-z0-9.-]+|\[[0-9a-f:]+\]):)?\d{1,5}$/i, { error: 'must be host:port or a port' })
  .transform((v) => {
    const colon = v.lastIndexOf(':');
    const host = colon < 0 ? '0.0.0.0' : v.slice(0, colon).replace(/^\[|\]$/g, '');
    return { host, port: Number(colon < 0 ? v : v.slice(colon + 1)) };
  })
  .refine((l) => l.port <= 65_535, { error: 'the port must be at most 65535' });

const Env = z
  .object({
    /** Where the platform reaches the receiver (a proxy in front of WEBHOOK_LISTEN); set: submits carry it. */
    WEBHOOK_PUBLIC_URL: HttpUrl.max(2_000).optional(),
    /** Set: this process runs the receiver (the worker, or `npm run webhooks`). */
    WEBHOOK_LISTEN: Listen.optional(),
    /** Signs each task's callback URL; the same in every worker and receiver. Never logged. */
    WEBHOOK_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).max(1_024).optional(),
    /** While a callback is expected: the first safety-net poll this long after the submit. */
    WEBHOOK_FIRST_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /** …and then polls at least this far apart. */
    WEBHOOK_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** Larger callback bodies are refused (413). */
    WEBHOOK_MAX_BODY_KB: z.coerce.number().int().min(1).max(10_240).default(256),
  })
  .superRefine((e, ctx) => {
    for (const key of ['WEBHOOK_PUBLIC_URL', 'WEBHOOK_LISTEN'] as const) {
      if (e[key] !== undefined && e.WEBHOOK_SECRET === undefined) {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET'], message: `is required when ${key} is set` });
      }
    }
  });

export type WebhookSettings = z.output<typeof Env>;

export function loadWebhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return parseConfig(Env, env, 'Webhook configuration');
}
