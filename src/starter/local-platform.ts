// The platform a local stack's worker talks to: the one PLATFORM_BASE_URL and PLATFORM_API_KEY name,
// or else the emulator, started in this process (`npm start` and `npm run cluster` both do this).
import { DEV_API_KEY, loadEmulatorConfig } from '../../packages/emulator/src/config';
import { startEmulator } from '../../packages/emulator/src/server';

/** Sets PLATFORM_BASE_URL and PLATFORM_API_KEY when the emulator is started; returns how to stop it. */
export async function startLocalPlatform(out: (line: string) => void): Promise<() => Promise<void>> {
  if (process.env.PLATFORM_BASE_URL && process.env.PLATFORM_API_KEY) {
    out(`Using the platform at ${process.env.PLATFORM_BASE_URL}.`);
    return async () => {};
  }
  const emulator = await startEmulator(loadEmulatorConfig());
  process.env.PLATFORM_BASE_URL = emulator.url;
  process.env.PLATFORM_API_KEY = loadEmulatorConfig().apiKeys[0] ?? DEV_API_KEY;
  out(`Platform emulator on ${emulator.url} (admin API under /_emulator).`);
  return () => emulator.close();
}
