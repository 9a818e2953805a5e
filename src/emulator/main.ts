// CLI entry of the platform emulator (`npm run emulator`): reads EMULATOR_* from the environment,
// starts, prints where it listens and the dev key's masked form, and stops on SIGINT/SIGTERM.
import { EmulatorConfigError, loadEmulatorConfig, maskKey } from './config';
import { startEmulator } from './server';

async function main(): Promise<void> {
  const options = loadEmulatorConfig(process.env);
  const emulator = await startEmulator(options);
  const keys = options.apiKeys.map(maskKey).join(', ');
  console.log(`platform emulator listening on ${emulator.url} (clock speed ${options.clockSpeed})`);
  console.log(`API keys: ${keys} (see docs/emulator.md); admin API: ${emulator.url}/_emulator`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the emulator`);
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

main().catch((err: unknown) => {
  console.error(err instanceof EmulatorConfigError ? err.message : err);
  process.exit(1);
});
