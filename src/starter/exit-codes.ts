// What the starter's exit status means, so scripts can act on it.
export const ExitCode = {
  Ok: 0,
  /** The workflow failed, was cancelled, terminated or timed out. */
  WorkflowFailed: 1,
  /** Bad command line or workflow input: nothing was started. */
  Usage: 2,
  /** Temporal could not be reached. */
  Unavailable: 3,
  /** No such workflow (describe, cancel), schedule, or member ledger. */
  NotFound: 4,
  /** A workflow with that id is already running, or a schedule with that id exists. */
  AlreadyStarted: 5,
} as const;
type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error meant for a person: printed as its message alone, with its exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
  ) {
    super(message);
  }
}
