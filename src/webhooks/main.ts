// `npm run webhooks`: the webhook receiver as a process of its own, for when the worker should not take traffic
// from the internet (docs/configuration.md#webhooks).
import { Client, Connection } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import {
  clientConnectionOptions,
  loadTemporalSettings,
  loadWebhookSettings,
  loadWorkerSettings,
  localKeyFile,
} from '../config/settings';
import { installRuntime, runMain } from '../process-entry';
import { serveCallbacks } from './receiver';
import { loadDataConverter } from '@platform-ops/client';

export async function runReceiver(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const settings = loadWebhookSettings(env);
  if (!settings.WEBHOOK_LISTEN)
    throw new Error('Webhook configuration: WEBHOOK_LISTEN: is required to run the receiver');
  installRuntime(loadWorkerSettings(env));
  const temporal = loadTemporalSettings(env);
  const dataConverter = loadDataConverter(env, { localKeyFile: localKeyFile(env) });
  const connection = await Connection.connect(clientConnectionOptions(temporal));
  const receiver = await serveCallbacks(
    settings,
    new Client({ connection, namespace: temporal.namespace, dataConverter }),
    temporal.namespace,
  );
  Runtime.instance().logger.info('Webhook receiver started', { url: receiver?.url, namespace: temporal.namespace });
  // Ready for whoever started it (tests, a supervisor).
  process.send?.({ ready: true, url: receiver?.url });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await receiver?.close();
  await connection.close();
  // The Runtime (its metrics endpoint) keeps the event loop alive on its own.
  await Runtime.instance().shutdown();
}

if (require.main === module) runMain('Webhook receiver stopped', runReceiver);
