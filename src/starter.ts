#!/usr/bin/env node
import { Command } from 'commander';
import { addRegisterSearchAttributesOption } from './namespace/search-attributes';
import { addEndpointCommands } from './operations/serverlessEndpoint/starter';
import { addBudgetCommands } from './starter/commands/budget';
import { addDeployCommands } from './starter/commands/deploy';
import { addEmulatorCommand } from './starter/commands/emulator';
import { addIncidentCommands } from './starter/commands/incident';
import { addInspectCommands } from './starter/commands/inspect';
import { addPlatformCommands } from './starter/commands/platform';
import { addScheduleCommands } from './starter/commands/schedule';
import { addStartCommands } from './starter/commands/start';
import { upCommand } from './starter/commands/up';
import { runProgram } from './cli/command';
import { isRuntimeInstalled } from './process-entry';

const out = (line: string) => process.stdout.write(`${line}\n`);

export function buildProgram(): Command {
  const program = new Command('platform-ops')
    .description('Durable Temporal workflows for the cloud AI/GPU platform')
    .exitOverride()
    .showHelpAfterError();
  addRegisterSearchAttributesOption(
    program.command('up').description('run the local stack: Temporal dev server + Web UI, emulator, worker'),
    (env) => {
      Object.assign(process.env, env);
      return upCommand();
    },
  );
  addEmulatorCommand(program, out);
  addStartCommands(program, out);
  addInspectCommands(program, out);
  addPlatformCommands(program, out);
  addScheduleCommands(program, out);
  addBudgetCommands(program, out);
  addEndpointCommands(program, out);
  addIncidentCommands(program, out);
  addDeployCommands(program, out);
  return program;
}

export const main = (argv: string[]): Promise<number> => runProgram(buildProgram(), argv);

if (require.main === module) {
  // Piped into `head`, say: once the reader is gone there is nobody to tell, so stop quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  void main(process.argv).then((code) => {
    process.exitCode = code;
    // `up` installs the Temporal Runtime: once it has stopped (or failed to start), nothing else ends the process.
    if (isRuntimeInstalled()) process.exit(code);
  });
}
