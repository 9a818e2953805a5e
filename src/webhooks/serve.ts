// Starts the receiver as the settings ask (WEBHOOK_LISTEN), in whichever process calls it: the worker
// or the receiver's own process (./main.ts). Its counters go to that process's Runtime metric meter.
import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import type { WebhookSettings } from '../config/settings';
import { callbackMetrics } from './metrics';
import { startCallbackReceiver, type RunningReceiver } from './receiver';
import { CallbackSigner } from './token';

/** The running receiver, or undefined when WEBHOOK_LISTEN is not set. */
export async function serveCallbacks(
  settings: WebhookSettings,
  client: Client,
  namespace: string,
): Promise<RunningReceiver | undefined> {
  if (!settings.WEBHOOK_LISTEN || !settings.WEBHOOK_SECRET) return undefined;
  const logger = Runtime.instance().logger;
  return startCallbackReceiver(
    {
      client,
      signer: new CallbackSigner(settings.WEBHOOK_SECRET, namespace),
      metrics: callbackMetrics(Runtime.instance().metricMeter),
      maxBodyBytes: settings.WEBHOOK_MAX_BODY_KB * 1024,
      warn: (message, meta) => {
        logger.warn(message, meta);
      },
    },
    settings.WEBHOOK_LISTEN,
  );
}
