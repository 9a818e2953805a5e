// `platform-ops emulator`: the platform emulator (packages/emulator) alone, as its `platform-ops-emulator` runs it.
import type { Command } from 'commander';
import {
  EmulatorConfigError,
  type EmulatorFlags,
  loadEmulatorConfig,
  runEmulatorProcess,
} from '@platform-ops/emulator';
import { CliError, ExitCode, type Out } from '../../cli/command';

export function addEmulatorCommand(program: Command, out: Out): void {
  program
    .command('emulator')
    .description('run the platform emulator (docs/emulator.md); flags win over EMULATOR_* variables')
    .option('--port <port>', 'port to listen on, 0 for a free one (EMULATOR_PORT, default 8787)')
    .option('--host <host>', 'address to listen on (EMULATOR_HOST, default 127.0.0.1)')
    .option('--clock-speed <factor>', 'emulated ms per real ms (EMULATOR_CLOCK_SPEED, default 1)')
    .option('--fixtures <file>', 'fixtures JSON file (EMULATOR_FIXTURES)')
    .option('--scenario <file>', 'scenario JSON file, started at once (EMULATOR_SCENARIO)')
    .option('--record <file>', 'append every request and answer to this JSONL file (EMULATOR_RECORD)')
    .action(async (flags: EmulatorFlags) => {
      let options;
      try {
        options = loadEmulatorConfig(process.env, flags);
      } catch (err) {
        if (err instanceof EmulatorConfigError) throw new CliError(err.message, ExitCode.Usage);
        throw err;
      }
      await runEmulatorProcess(options, out);
    });
}
