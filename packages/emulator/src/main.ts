// CLI entry of the platform emulator (`npm run emulator`): reads EMULATOR_* from the environment and
// runs it (cli.ts). `platform-ops emulator` does the same with flags over the variables.
import { runEmulatorProcess } from './cli';
import { EmulatorConfigError, loadEmulatorConfig } from './config';

(async () => runEmulatorProcess(loadEmulatorConfig(process.env)))().catch((err: unknown) => {
  console.error(err instanceof EmulatorConfigError ? err.message : err);
  process.exit(1);
});
