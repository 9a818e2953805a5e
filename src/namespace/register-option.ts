// The `--[no-]register-search-attributes` option of the worker and of `npm start`: one definition,
// turned into WORKER_REGISTER_SEARCH_ATTRIBUTES, which the worker's settings read.
import type { Command } from 'commander';

export interface RegisterOption {
  registerSearchAttributes?: boolean;
}

export function addRegisterSearchAttributesOption(command: Command): Command {
  // With both forms defined, commander leaves the value undefined unless one is given: the default
  // then depends on where the server is (see WORKER_REGISTER_SEARCH_ATTRIBUTES).
  return command
    .option('--register-search-attributes', 'add search attributes the namespace lacks (default: on a local server)')
    .option('--no-register-search-attributes', 'refuse to start when the namespace lacks one');
}

/** The environment with the option applied (unchanged when it was not given). */
export function withRegisterOption(env: NodeJS.ProcessEnv, opts: RegisterOption): NodeJS.ProcessEnv {
  if (opts.registerSearchAttributes === undefined) return env;
  return { ...env, WORKER_REGISTER_SEARCH_ATTRIBUTES: String(opts.registerSearchAttributes) };
}
