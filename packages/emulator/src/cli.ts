// Runs the emulator as a process (`npm run emulator`, `platform-ops emulator`): starts it from the
// given options, prints where it listens and the keys' masked forms, and stops on SIGINT/SIGTERM.
import type { EmulatorOptions } from './config';
import { maskKey } from './config';
import { startEmulator } from './server';

export async function runEmulatorProcess(options: EmulatorOptions, out = console.log): Promise<void> {
  const emulator = await startEmulator(options);
  const keys = options.apiKeys.map(maskKey).join(', ');
  out(`platform emulator listening on ${emulator.url} (clock speed ${options.clockSpeed})`);
  out(`API keys: ${keys} (see docs/emulator.md); admin API: ${emulator.url}/_emulator`);
  if (options.scenario) out(`scenario "${options.scenario.name}" started (GET ${emulator.url}/_emulator/scenario)`);
  if (options.recordFile) out(`recording requests and answers to ${options.recordFile}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    out(`${signal}: stopping the emulator`);
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('emulator did not close cleanly:', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
