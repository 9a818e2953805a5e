#!/usr/bin/env node
// The emulator's command (`platform-ops-emulator`, `npm run emulator`): EMULATOR_* from the environment,
// the flags over them (cli.ts). A bad flag, variable or file exits with status 2, naming it and the rule.
import { EMULATOR_USAGE, parseEmulatorArgs, runEmulatorProcess } from './cli';
import { EmulatorConfigError, loadEmulatorConfig } from './config';

(async () => {
  const flags = parseEmulatorArgs(process.argv.slice(2));
  if (flags === 'help') return console.log(EMULATOR_USAGE);
  await runEmulatorProcess(loadEmulatorConfig(process.env, flags));
})().catch((err: unknown) => {
  const usage = err instanceof EmulatorConfigError;
  console.error(usage ? err.message : err);
  process.exit(usage ? 2 : 1);
});
