// `npm run codec`: the codec server as a process of its own (docs/encryption.md).
import { localKeyFile } from '../config/settings';
import { runMain } from '../process-entry';
import { loadKeyring } from '@platform-ops/client';
import { loadCodecServerSettings, startCodecServer } from './server';

async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const settings = loadCodecServerSettings(env);
  const keyring = loadKeyring(env, { localKeyFile: localKeyFile(env) });
  if (!keyring) throw new Error('PAYLOAD_ENCRYPTION=off: there is nothing for a codec server to do.');
  const server = await startCodecServer({ ...settings, keyring });
  const auth = settings.auth.mode === 'jwt' ? `tokens of ${settings.auth.issuer}` : 'anyone on this machine';
  console.log(`Codec server on ${server.url} (keys ${keyring.ids.join(', ')}; ${auth}). Ctrl-C stops it.`);
  process.send?.({ ready: true, url: server.url });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
}

if (require.main === module) runMain('Codec server stopped', main);
