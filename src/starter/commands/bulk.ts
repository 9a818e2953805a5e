// `incident reset` and `incident cancel`: one server batch operation over every run a visibility query
// matches (docs/operations.md#bulk-actions). The server does the work, paced by its batcher
// (deploy/dynamicconfig/cluster.yaml); the starter counts the matches first, starts the batch, and follows
// its counts until it ends. Ctrl-C stops the following, not the batch: it runs on in the server.
import { randomUUID } from 'node:crypto';
import { isGrpcServiceError, ServiceError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import { CliError, ExitCode, plural, withStarter, type Out } from '../../cli/command';
import { formatSeconds } from '../../cli/progress';

const { BatchOperationState } = temporal.api.enums.v1;

/** The reset points `--to` names, as the server's ResetOptions calls them. */
const RESET_POINTS = { 'last-task': 'lastWorkflowTask', 'first-task': 'firstWorkflowTask' } as const;
export type ResetPoint = keyof typeof RESET_POINTS;

/** The server updates a batch's counts in its heartbeat, every 2.5 s: a describe a few seconds apart sees each. */
const WATCH_EVERY_MS = 3_000;
/** Unchanged counts are printed again this often, so a log shows the watch is alive without a line per poll. */
const QUIET_LINE_MS = 30_000;
/** The server records the reason with the batch; a screenful is plenty. */
const MAX_REASON = 1_000;

const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;

/** The gRPC error under a client error, if there is one (the client wraps some calls' errors). */
export function grpcError(err: unknown) {
  if (isGrpcServiceError(err)) return err;
  if (err instanceof ServiceError && isGrpcServiceError(err.cause)) return err.cause;
  return undefined;
}

/** The gRPC status code of a failed call, if it has one. */
export const grpcCode = (err: unknown): number | undefined => grpcError(err)?.code;

/** A visibility query's refusal as the flag's error; any other error as it is. */
export function queryRefused(err: unknown, query: string): unknown {
  const grpc = grpcError(err);
  if (!grpc || grpcCode(grpc) !== INVALID_ARGUMENT) return err;
  return new CliError(`--query "${query}" was refused by Temporal: ${grpc.details}.`, ExitCode.Usage);
}

/** `--query`: the flag is required by commander; it must also say something. */
export function checkedQuery(query: string): string {
  if (query.trim() === '') throw new CliError('--query: must not be empty (a visibility query).', ExitCode.Usage);
  return query;
}

function checkedReason(reason: string): string {
  if (reason.trim() === '') throw new CliError('--reason: must not be empty.', ExitCode.Usage);
  if (reason.length > MAX_REASON) {
    throw new CliError(`--reason: at most ${MAX_REASON} characters (it has ${reason.length}).`, ExitCode.Usage);
  }
  return reason;
}

const checkedFlags = (opts: BatchOptions): BatchOptions => ({
  query: checkedQuery(opts.query),
  reason: checkedReason(opts.reason),
});

function checkedResetPoint(to: string): ResetPoint {
  if (Object.hasOwn(RESET_POINTS, to)) return to as ResetPoint;
  throw new CliError(`--to: "${to}" is not a reset point (${Object.keys(RESET_POINTS).join(', ')}).`, ExitCode.Usage);
}

interface BatchAction {
  /** What one operation does to a run, for the lines: "reset", "cancelled". */
  done: string;
  /** The runs the server acts on: a cancel only reaches open ones (the batcher adds the same condition). */
  matching(query: string): string;
  operation(identity: string): temporal.api.workflowservice.v1.IStartBatchOperationRequest;
  /** The first line, once the batch has started. */
  intro(runs: string, jobId: string): string;
}

const resetAction = (to: ResetPoint): BatchAction => ({
  done: 'reset',
  matching: (query) => query,
  operation: (identity) => ({ resetOperation: { identity, options: { [RESET_POINTS[to]]: {} } } }),
  intro: (runs, jobId) => `Resetting ${runs} to their ${to.replace('-', ' ')}, as batch operation ${jobId}.`,
});

const cancelAction: BatchAction = {
  done: 'cancelled',
  matching: (query) => `(${query}) AND ExecutionStatus = 'Running'`,
  operation: (identity) => ({ cancellationOperation: { identity } }),
  intro: (runs, jobId) => `Requesting cancellation of ${runs}, as batch operation ${jobId}.`,
};

/** The batch operations running in the namespace now (listBatchOperations shows the newest first). */
async function runningBatches(client: Client): Promise<string[]> {
  const { operationInfo } = await client.workflowService
    .listBatchOperations({ namespace: client.options.namespace, pageSize: 100 })
    .catch(() => ({ operationInfo: [] }));
  return (operationInfo ?? [])
    .filter((o) => o.state === BatchOperationState.BATCH_OPERATION_STATE_RUNNING)
    .map((o) => o.jobId ?? '');
}

/** The namespace's batch slots are taken: which batches hold them, for the operator to wait for. */
async function busyError(client: Client): Promise<CliError> {
  const running = await runningBatches(client);
  const holders = running.length > 0 ? running.join(', ') : 'another batch operation';
  return new CliError(
    `${holders} is still running in namespace ${client.options.namespace}, and the server takes no more ` +
      'batch operations at once there (frontend.MaxConcurrentBatchOperationPerNamespace): wait until it ends ' +
      '(temporal batch describe --job-id <id>), then run this again.',
    ExitCode.Unavailable,
  );
}

export interface BatchCounts {
  state: temporal.api.enums.v1.BatchOperationState;
  total: number;
  completed: number;
  failed: number;
}

const STATE_WORDS: Partial<Record<temporal.api.enums.v1.BatchOperationState, string>> = {
  [BatchOperationState.BATCH_OPERATION_STATE_RUNNING]: 'running',
  [BatchOperationState.BATCH_OPERATION_STATE_COMPLETED]: 'completed',
  [BatchOperationState.BATCH_OPERATION_STATE_FAILED]: 'failed',
};

const countsLine = (jobId: string, c: BatchCounts, done: string) =>
  `Batch ${jobId} ${STATE_WORDS[c.state] ?? 'in an unknown state'}: ${c.completed} of ${c.total} ${done}, ${c.failed} failed`;

/**
 * Describes the batch every few seconds until it ends, a line whenever its counts change; resolves to its
 * last counts, or undefined when Ctrl-C stopped the watch first.
 */
async function watchBatch(
  client: Client,
  jobId: string,
  { done, counted }: { done: string; counted: number },
  out: Out,
): Promise<BatchCounts | undefined> {
  let interrupted = false;
  let wake = () => {};
  const onInterrupt = () => {
    interrupted = true;
    wake();
  };
  process.once('SIGINT', onInterrupt);
  const started = Date.now();
  let last = '';
  let lastAt = 0;
  try {
    for (;;) {
      const d = await client.workflowService
        .describeBatchOperation({ namespace: client.options.namespace, jobId })
        .catch((err: unknown) => {
          throw new CliError(
            `Lost sight of batch operation ${jobId} (${err instanceof Error ? err.message : String(err)}); ` +
              `whether it goes on is the server's: temporal batch describe --job-id ${jobId}`,
            ExitCode.Unavailable,
          );
        });
      const counts: BatchCounts = {
        state: d.state ?? BatchOperationState.BATCH_OPERATION_STATE_UNSPECIFIED,
        // Until the server has counted the matches itself, ours stand in.
        total: Number(d.totalOperationCount ?? 0) || counted,
        completed: Number(d.completeOperationCount ?? 0),
        failed: Number(d.failureOperationCount ?? 0),
      };
      if (counts.state !== BatchOperationState.BATCH_OPERATION_STATE_RUNNING) return counts;
      const line = countsLine(jobId, counts, done);
      if (line !== last || Date.now() - lastAt >= QUIET_LINE_MS) {
        out(`${line} (${formatSeconds((Date.now() - started) / 1000)})`);
        last = line;
        lastAt = Date.now();
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (!interrupted) setTimeout(resolve, WATCH_EVERY_MS);
      });
      if (interrupted) return undefined;
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}

interface BatchOptions {
  query: string;
  reason: string;
  to?: string;
}

/**
 * Resets every run `query` matches to `to`, as `incident reset` does, and follows the batch to its end. For the
 * fault suites, which reset by query as an operator does and judge the outcome themselves.
 */
export async function resetByQuery(
  client: Client,
  { query, to, reason }: { query: string; to: ResetPoint; reason: string },
  out: Out,
): Promise<Batch | undefined> {
  return startAndWatch(client, 'reset', resetAction(to), { query: checkedQuery(query), reason }, out);
}

/** A batch operation started, and its last counts (none when Ctrl-C stopped the watch first). */
export interface Batch {
  jobId: string;
  end: BatchCounts | undefined;
}

/** Starts the batch and follows it to its end; undefined when no run matches, so nothing started. */
async function startAndWatch(
  client: Client,
  name: string,
  action: BatchAction,
  { query, reason }: BatchOptions,
  out: Out,
): Promise<Batch | undefined> {
  const { namespace } = client.options;
  const matching = action.matching(query);
  const { count } = await client.workflow.count(matching).catch((err: unknown) => {
    throw queryRefused(err, query);
  });
  if (count === 0) {
    out(`No run matches: ${matching}. Nothing ${action.done}; no batch operation started.`);
    return undefined;
  }
  // The server refuses a batch while its slots are taken, and the client retries that refusal for about half a
  // minute before giving up: say what it waits for.
  const others = await runningBatches(client);
  if (others.length > 0) {
    const [noun, verb] = others.length === 1 ? ['Batch operation', 'is'] : ['Batch operations', 'are'];
    out(`${noun} ${others.join(', ')} ${verb} running: the server may hold this one until a slot is free.`);
  }
  const jobId = `platform-ops-${name}-${randomUUID()}`;
  const identity = `platform-ops-starter incident ${name}`;
  await client.workflowService
    .startBatchOperation({ namespace, jobId, reason, visibilityQuery: matching, ...action.operation(identity) })
    .catch(async (err: unknown) => {
      if (grpcCode(err) === RESOURCE_EXHAUSTED) throw await busyError(client);
      throw queryRefused(err, query);
    });
  out(action.intro(plural(count, 'run'), jobId));
  out('Ctrl-C stops watching; the batch goes on in the server. Its counts move a page of 1,000 runs at a time.');
  const end = await watchBatch(client, jobId, { done: action.done, counted: count }, out);
  if (end) out(`${countsLine(jobId, end, action.done)}.`);
  return { jobId, end };
}

async function runBatch(
  client: Client,
  name: string,
  action: BatchAction,
  opts: BatchOptions,
  out: Out,
): Promise<void> {
  const batch = await startAndWatch(client, name, action, opts, out);
  if (!batch) return;
  const { jobId, end } = batch;
  if (!end) {
    throw new CliError(
      `Stopped watching batch operation ${jobId}; it goes on in the server: temporal batch describe --job-id ${jobId}`,
      ExitCode.Interrupted,
    );
  }
  if (end.state !== BatchOperationState.BATCH_OPERATION_STATE_COMPLETED) {
    throw new CliError(
      `Batch operation ${jobId} did not complete: temporal workflow show --workflow-id ${jobId} says why.`,
      ExitCode.WorkflowFailed,
    );
  }
  if (end.failed > 0) {
    throw new CliError(
      `${plural(end.failed, 'run')} of batch operation ${jobId} could not be ${action.done}: the Temporal server logs ` +
        'each ("Failed to process batch operation task"). Narrow the query to those runs before running it again.',
      ExitCode.WorkflowFailed,
    );
  }
}

export function addBulkCommands(incident: Command, out: Out): void {
  incident
    .command('reset')
    .description('reset every run a query matches, as one server batch operation, and follow it to its end')
    .requiredOption('--query <visibility query>', 'which runs (every run it matches, open or closed, is reset)')
    .option('--to <point>', `where each run starts again: ${Object.keys(RESET_POINTS).join(' or ')}`, 'last-task')
    .option('--reason <text>', 'why, recorded with the batch and each reset', 'platform-ops incident reset')
    .action((opts: BatchOptions) => {
      // Every flag is checked before anything reaches the server.
      const action = resetAction(checkedResetPoint(opts.to!));
      const checked = checkedFlags(opts);
      return withStarter(({ client }) => runBatch(client, 'reset', action, checked, out));
    });
  incident
    .command('cancel')
    .description('request cancellation of every running run a query matches, as one server batch operation')
    .requiredOption('--query <visibility query>', 'which runs (only running ones are cancelled)')
    .option('--reason <text>', 'why, recorded with the batch', 'platform-ops incident cancel')
    .action((opts: BatchOptions) => {
      const checked = checkedFlags(opts);
      return withStarter(({ client }) => runBatch(client, 'cancel', cancelAction, checked, out));
    });
}
