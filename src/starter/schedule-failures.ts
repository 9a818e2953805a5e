// Turns Temporal's schedule errors into one sentence for a person, with the starter's exit codes.
import { isGrpcServiceError, ScheduleAlreadyRunning, ScheduleNotFoundError, ServiceError } from '@temporalio/client';
import { CliError, ExitCode } from './exit-codes';
import { toCliError } from './failures';

/** gRPC INVALID_ARGUMENT: the server refused what was sent (an unregistered search attribute, say). */
const INVALID_ARGUMENT = 3;

export function toScheduleCliError(err: unknown, scheduleId: string, what: { cron?: string } = {}): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof ScheduleNotFoundError) {
    return new CliError(
      `Schedule ${scheduleId} was not found; \`schedule list\` shows the schedules.`,
      ExitCode.NotFound,
    );
  }
  if (err instanceof ScheduleAlreadyRunning) {
    return new CliError(
      `Schedule ${scheduleId} already exists: pick another id, or delete it first.`,
      ExitCode.AlreadyStarted,
    );
  }
  // The client turns the server's "Invalid schedule spec" into a TypeError; the cron expression is the
  // only part of the spec the server checks that the starter has not.
  if (err instanceof TypeError) {
    const flag = what.cron === undefined ? 'The schedule spec' : `--cron "${what.cron}"`;
    return new CliError(`${flag} was refused by Temporal: ${err.message}.`, ExitCode.Usage);
  }
  if (err instanceof ServiceError && isGrpcServiceError(err.cause) && (err.cause.code as number) === INVALID_ARGUMENT) {
    return new CliError(`Temporal refused schedule ${scheduleId}: ${err.cause.details}.`, ExitCode.Usage);
  }
  return toCliError(err);
}
