// What the starter's commands share: a client configured like the worker's, exit codes, and errors as sentences.
import type { DataConverter } from '@temporalio/common';
import { IdempotencyKeyReusedError, KeyringError, loadDataConverter } from '@platform-ops/client';
import {
  Client,
  Connection,
  isGrpcServiceError,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { clientConnectionOptions, loadTemporalSettings, localKeyFile, type TemporalSettings } from '../config/settings';
import { startTracing, tracingClientInterceptors } from '../tracing';

/** The exit status, for scripts to act on (docs/starter.md#exit-codes). */
export const ExitCode = {
  Ok: 0,
  WorkflowFailed: 1,
  Usage: 2,
  Unavailable: 3,
  NotFound: 4,
  AlreadyStarted: 5,
  /** Ctrl-C stopped the starter watching something that goes on without it (a batch operation). */
  Interrupted: 130,
} as const;

/** An error meant for a person: printed as its message alone, with its exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: (typeof ExitCode)[keyof typeof ExitCode],
  ) {
    super(message);
  }
}

/** The innermost failure that says what went wrong (an activity failure wraps the real one). */
const rootCause = (err: Error, depth = 0): Error =>
  err.cause instanceof Error && depth < 10 ? rootCause(err.cause, depth + 1) : err;

/** The innermost failure's message, with its type where it has one: `no budget [BudgetExceeded]`. */
export function failureText(err: Error): string {
  const cause = rootCause(err);
  return cause instanceof ApplicationFailure && cause.type ? `${cause.message} [${cause.type}]` : cause.message;
}

/** An Update to a closed workflow: the server's NOT_FOUND "already completed" reaches us as WorkflowNotFoundError. */
export function isClosedWorkflow(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError && /already completed/i.test(err.message);
}

export function toCliError(err: unknown, workflowId?: string): CliError {
  if (err instanceof CliError) return err;
  const id = workflowId ? `Workflow ${workflowId}` : 'The workflow';
  if (isClosedWorkflow(err)) {
    // The request came too late rather than naming a wrong id: the same code as a validator's refusal.
    return new CliError(
      `${id} has already finished, so it takes no more requests; describe it to see how it ended.`,
      ExitCode.Usage,
    );
  }
  if (err instanceof WorkflowNotFoundError) return new CliError(`${id} was not found.`, ExitCode.NotFound);
  if (err instanceof IdempotencyKeyReusedError) return new CliError(err.message, ExitCode.AlreadyStarted);
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new CliError(`${id} is already running: pick another --id, or describe it.`, ExitCode.AlreadyStarted);
  }
  if (err instanceof WorkflowUpdateFailedError) {
    // A validator's refusal (or the handler's failure): the workflow itself goes on.
    return new CliError(`${id} refused the request: ${rootCause(err).message}`, ExitCode.Usage);
  }
  if (err instanceof WorkflowFailedError) {
    if (rootCause(err) instanceof CancelledFailure || err.cause instanceof CancelledFailure) {
      return new CliError(`${id} was cancelled.`, ExitCode.WorkflowFailed);
    }
    if (err.cause instanceof TerminatedFailure) return new CliError(`${id} was terminated.`, ExitCode.WorkflowFailed);
    if (err.cause instanceof TimeoutFailure) return new CliError(`${id} timed out.`, ExitCode.WorkflowFailed);
    return new CliError(`${id} failed: ${failureText(err)}`, ExitCode.WorkflowFailed);
  }
  return new CliError(err instanceof Error ? err.message : String(err), ExitCode.WorkflowFailed);
}

export const orCliError = <T>(promise: Promise<T>, workflowId?: string): Promise<T> =>
  promise.catch((err: unknown) => {
    throw toCliError(err, workflowId);
  });

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
  // The client turns "Invalid schedule spec" into a TypeError; the cron is all the server checks that we do not.
  if (err instanceof TypeError) {
    const flag = what.cron === undefined ? 'The schedule spec' : `--cron "${what.cron}"`;
    return new CliError(`${flag} was refused by Temporal: ${err.message}.`, ExitCode.Usage);
  }
  if (err instanceof ServiceError && isGrpcServiceError(err.cause) && (err.cause.code as number) === INVALID_ARGUMENT) {
    return new CliError(`Temporal refused schedule ${scheduleId}: ${err.cause.details}.`, ExitCode.Usage);
  }
  return toCliError(err);
}

export type Out = (line: string) => void;

/** A table's line: each cell padded to its column's width (a last cell without one as it is). */
export const tableRow = (widths: number[], cells: unknown[], gap = ' '): string =>
  cells.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join(gap);

export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export async function withStarter<T>(
  fn: (starter: { client: Client; settings: TemporalSettings }) => Promise<T>,
): Promise<T> {
  const settings = loadTemporalSettings();
  // What the starter writes is encrypted, and what it reads decrypted, as the worker's (src/codec).
  let dataConverter: DataConverter;
  try {
    dataConverter = loadDataConverter(process.env, { localKeyFile: localKeyFile() });
  } catch (err) {
    if (err instanceof KeyringError) throw new CliError(err.message, ExitCode.Usage);
    throw err;
  }
  const connection = await Connection.connect({ ...clientConnectionOptions(settings), connectTimeout: '5s' }).catch(
    (err: unknown) => {
      throw new CliError(
        `Cannot reach Temporal at ${settings.address}: ${err instanceof Error ? err.message : String(err)}. ` +
          'Is `npm start` running, or is TEMPORAL_ADDRESS right?',
        ExitCode.Unavailable,
      );
    },
  );
  // With OTEL_* set, the workflow's trace starts at the starter's start call (docs/observability.md).
  const tracing = startTracing(process.env, 'platform-ops-starter');
  const interceptors = tracing ? tracingClientInterceptors() : undefined;
  try {
    const client = new Client({ connection, namespace: settings.namespace, interceptors, dataConverter });
    return await fn({ client, settings });
  } finally {
    await connection.close();
    await tracing?.shutdown();
  }
}
