import type { DataConverter } from '@temporalio/common';
import { CommanderError, type Command } from 'commander';
import {
  allowPlaintext,
  encryptsPayloads,
  IdempotencyKeyReusedError,
  KeyringError,
  loadDataConverter,
} from '@platform-ops/client';
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

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: (typeof ExitCode)[keyof typeof ExitCode],
  ) {
    super(message);
  }
}

/** An activity failure wraps the one that says what went wrong. */
const rootCause = (err: Error, depth = 0): Error =>
  err.cause instanceof Error && depth < 10 ? rootCause(err.cause, depth + 1) : err;

export function failureText(err: Error): string {
  const cause = rootCause(err);
  return cause instanceof ApplicationFailure && cause.type ? `${cause.message} [${cause.type}]` : cause.message;
}

/** An Update to a closed workflow: the server's NOT_FOUND "already completed" comes as WorkflowNotFoundError. */
export function isClosedWorkflow(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError && /already completed/i.test(err.message);
}

export function toCliError(err: unknown, workflowId?: string): CliError {
  if (err instanceof CliError) return err;
  const id = workflowId ? `Workflow ${workflowId}` : 'The workflow';
  if (isClosedWorkflow(err)) {
    // Too late rather than a wrong id: the same code as a validator's refusal.
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

/** Runs a CLI program built with `exitOverride()`: its exit code, with the error's message on stderr when it fails. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return ExitCode.Ok;
  } catch (err) {
    // Commander has printed the usage problem already (or the help, which is no error).
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    const cliError = toCliError(err);
    process.stderr.write(`${cliError.message}\n`);
    return cliError.exitCode;
  }
}

export const orCliError = <T>(promise: Promise<T>, workflowId?: string): Promise<T> =>
  promise.catch((err: unknown) => {
    throw toCliError(err, workflowId);
  });

const GRPC_STATUS = { InvalidArgument: 3, NotFound: 5, AlreadyExists: 6, ResourceExhausted: 8 } as const;

/** The gRPC error under a client error, if there is one (the client wraps some calls' errors). */
function grpcError(err: unknown) {
  if (isGrpcServiceError(err)) return err;
  if (err instanceof ServiceError && isGrpcServiceError(err.cause)) return err.cause;
  return undefined;
}

export const isGrpcStatus = (err: unknown, status: keyof typeof GRPC_STATUS): boolean =>
  (grpcError(err)?.code as number | undefined) === GRPC_STATUS[status];

/** A visibility query's refusal as the flag's error; any other error as it is. */
export function queryRefused(err: unknown, query: string): unknown {
  const grpc = grpcError(err);
  if (!grpc || !isGrpcStatus(grpc, 'InvalidArgument')) return err;
  return new CliError(`--query "${query}" was refused by Temporal: ${grpc.details}.`, ExitCode.Usage);
}

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
  const grpc = err instanceof ServiceError ? grpcError(err.cause) : undefined;
  if (grpc && isGrpcStatus(grpc, 'InvalidArgument')) {
    return new CliError(`Temporal refused schedule ${scheduleId}: ${grpc.details}.`, ExitCode.Usage);
  }
  return toCliError(err);
}

export type Out = (line: string) => void;

export const tableRow = (widths: number[], cells: unknown[], gap = ' '): string =>
  cells.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join(gap);

export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export async function withStarter<T>(
  fn: (starter: { client: Client; settings: TemporalSettings }) => Promise<T>,
): Promise<T> {
  const settings = loadTemporalSettings();
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
    // A converter that does not encrypt here is PAYLOAD_ENCRYPTION=off, the operator's own choice for this namespace.
    if (!encryptsPayloads(client)) allowPlaintext(client, settings.namespace);
    return await fn({ client, settings });
  } finally {
    await connection.close();
    await tracing?.shutdown();
  }
}
