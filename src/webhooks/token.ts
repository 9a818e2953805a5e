// Per-task callback URLs and their check. The token is an HMAC of the namespace, workflow id and generation under
// WEBHOOK_SECRET, checked by recomputing it: any receiver with the secret checks any worker's URL, keeping no
// state. The URL never reaches the workflow: the submit activity adds it to the request it sends.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookSettings } from '../config/settings';

export const TASK_CALLBACK_PATH = '/task-callback';

interface CallbackTarget {
  workflowId: string;
  generation: number;
}

export class CallbackSigner {
  constructor(
    private readonly secret: string,
    private readonly namespace: string,
  ) {}

  token(t: CallbackTarget): string {
    return createHmac('sha256', this.secret)
      .update(`mediaGeneration\n${this.namespace}\n${t.workflowId}\n${t.generation}`)
      .digest('base64url');
  }

  /** Constant-time: a wrong token says nothing about the right one. */
  verify(t: CallbackTarget, token: string): boolean {
    const expected = Buffer.from(this.token(t));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export type CallbackUrls = NonNullable<ReturnType<typeof callbackUrls>>;

export function callbackUrls(
  settings: Omit<WebhookSettings, 'WEBHOOK_LISTEN' | 'WEBHOOK_MAX_BODY_KB'>,
  namespace: string,
) {
  const { WEBHOOK_PUBLIC_URL: publicUrl, WEBHOOK_SECRET: secret } = settings;
  if (!publicUrl || !secret) return undefined;
  const signer = new CallbackSigner(secret, namespace);
  const base = `${publicUrl.replace(/\/+$/, '')}${TASK_CALLBACK_PATH}`;
  return {
    urlFor: (t: CallbackTarget) => {
      const token = signer.token(t);
      return `${base}?${new URLSearchParams({ workflow: t.workflowId, generation: String(t.generation), token }).toString()}`;
    },
    // The safety-net polls while a callback is expected.
    firstPollAfterMs: settings.WEBHOOK_FIRST_POLL_SECONDS * 1000,
    pollIntervalMs: settings.WEBHOOK_POLL_INTERVAL_SECONDS * 1000,
  };
}
