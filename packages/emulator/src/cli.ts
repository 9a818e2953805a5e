// Runs the emulator as a process (`platform-ops-emulator`, `npm run emulator`, the service's
// `platform-ops emulator`): starts it from the given options, prints where it listens and the keys'
// masked forms, and stops on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import type { EmulatorFlags, EmulatorOptions } from './config';
import { EMULATOR_FLAGS, EmulatorConfigError, flagName, maskKey } from './config';
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

export const EMULATOR_USAGE = [
  'usage: platform-ops-emulator [flags]   (each flag wins over its EMULATOR_* variable; docs/emulator.md)',
  ...Object.entries(EMULATOR_FLAGS).map(([flag, name]) => `  ${`${flagName(flag)} <value>`.padEnd(24)}${name}`),
].join('\n');

/**
 * The command line's flags (`--port 0 --scenario outage.json`), or 'help' for `--help`. An unknown flag,
 * a missing value or a stray argument is an EmulatorConfigError naming it.
 */
export function parseEmulatorArgs(args: string[]): EmulatorFlags | 'help' {
  const names = Object.keys(EMULATOR_FLAGS) as (keyof typeof EMULATOR_FLAGS)[];
  const options = Object.fromEntries(names.map((flag) => [flagName(flag).slice(2), { type: 'string' as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { ...options, help: { type: 'boolean' } }, strict: true }));
  } catch (err) {
    throw new EmulatorConfigError(`${(err as Error).message}\n${EMULATOR_USAGE}`);
  }
  if (values.help) return 'help';
  return Object.fromEntries(
    names.flatMap((flag) => {
      const value = values[flagName(flag).slice(2)];
      return typeof value === 'string' ? [[flag, value]] : [];
    }),
  );
}
