// `incident reset` and `incident cancel`: one server batch operation over every run a visibility query matches
// (docs/operations.md#bulk-actions), paced by the server's batcher. Ctrl-C stops the following, not the batch.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import { CliError, ExitCode, isGrpcStatus, plural, queryRefused, withStarter, type Out } from '../../cli/command';
import { formatSeconds } from '../../cli/progress';

const { BatchOperationState } = temporal.api.enums.v1;

const RESET_POINTS = { 'last-task': 'lastWorkflowTask', 'first-task': 'firstWorkflowTask' } as const;
type ResetPoint = keyof typeof RESET_POINTS;

/** The server updates a batch's counts in its heartbeat, every 2.5 s. */
const WATCH_EVERY_MS = 3_000;
/** Unchanged counts are printed again this often, so a log shows the watch is alive. */
const QUIET_LINE_MS = 30_000;
const MAX_REASON = 1_000;
/** Runs a sweep works on at once: two or three frontend requests each, far below the namespace's rate limit. */
const IN_FLIGHT = 8;

/** `fn` on each listed run, IN_FLIGHT at once: each runner takes the next run when it is free. */
export async function forEachRun(client: Client, query: string, fn: (run: WorkflowExecutionInfo) => Promise<void>) {
  const runs = client.workflow.list({ query })[Symbol.asyncIterator]();
  const runner = async () => {
    for (let next = await runs.next(); !next.done; next = await runs.next()) await fn(next.value);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, runner));
}

export function checkedQuery(query: string): string {
  if (query.trim() === '') throw new CliError('--query: must not be empty (a visibility query).', ExitCode.Usage);
  return query;
}

function checkedFlags(opts: BatchOptions): BatchOptions {
  const query = checkedQuery(opts.query);
  if (opts.reason.trim() === '') throw new CliError('--reason: must not be empty.', ExitCode.Usage);
  if (opts.reason.length > MAX_REASON) {
    throw new CliError(`--reason: at most ${MAX_REASON} characters (it has ${opts.reason.length}).`, ExitCode.Usage);
  }
  return { query, reason: opts.reason };
}

function checkedResetPoint(to: string): ResetPoint {
  if (Object.hasOwn(RESET_POINTS, to)) return to as ResetPoint;
  throw new CliError(`--to: "${to}" is not a reset point (${Object.keys(RESET_POINTS).join(', ')}).`, ExitCode.Usage);
}

interface BatchAction {
  name: 'reset' | 'cancel';
  /** For the lines: "reset", "cancelled". */
  done: string;
  /** A cancel only reaches open runs (the batcher adds the same condition). */
  matching(query: string): string;
  operation(identity: string): temporal.api.workflowservice.v1.IStartBatchOperationRequest;
  intro(runs: string, jobId: string): string;
}

const resetAction = (to: ResetPoint): BatchAction => ({
  name: 'reset',
  done: 'reset',
  matching: (query) => query,
  operation: (identity) => ({ resetOperation: { identity, options: { [RESET_POINTS[to]]: {} } } }),
  intro: (runs, jobId) => `Resetting ${runs} to their ${to.replace('-', ' ')}, as batch operation ${jobId}.`,
});

const cancelAction: BatchAction = {
  name: 'cancel',
  done: 'cancelled',
  matching: (query) => `(${query}) AND ExecutionStatus = 'Running'`,
  operation: (identity) => ({ cancellationOperation: { identity } }),
  intro: (runs, jobId) => `Requesting cancellation of ${runs}, as batch operation ${jobId}.`,
};

async function runningBatches(client: Client): Promise<string[]> {
  const { operationInfo } = await client.workflowService
    .listBatchOperations({ namespace: client.options.namespace, pageSize: 100 })
    .catch(() => ({ operationInfo: [] }));
  return (operationInfo ?? [])
    .filter((o) => o.state === BatchOperationState.BATCH_OPERATION_STATE_RUNNING)
    .map((o) => o.jobId ?? '');
}

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

interface BatchCounts {
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

/** The batch's last counts, or undefined when Ctrl-C stopped the watch first. */
async function watchBatch(client: Client, jobId: string, done: string, counted: number, out: Out) {
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
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
      const slept = await sleep(WATCH_EVERY_MS, true, { signal: interrupt.signal }).catch(() => false);
      if (!slept) return undefined;
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

/** `incident reset` for the fault suites, which judge the outcome themselves. */
export async function resetByQuery(
  client: Client,
  { query, to, reason }: { query: string; to: ResetPoint; reason: string },
  out: Out,
) {
  return startAndWatch(client, resetAction(to), { query: checkedQuery(query), reason }, out);
}

/** Undefined when no run matches, so nothing started. */
async function startAndWatch(client: Client, action: BatchAction, { query, reason }: BatchOptions, out: Out) {
  const { namespace } = client.options;
  const matching = action.matching(query);
  const { count } = await client.workflow.count(matching).catch((err: unknown) => {
    throw queryRefused(err, query);
  });
  if (count === 0) {
    out(`No run matches: ${matching}. Nothing ${action.done}; no batch operation started.`);
    return undefined;
  }
  // The client retries the server's refusal while the batch slots are taken for about half a minute: say why.
  const others = await runningBatches(client);
  if (others.length > 0) {
    const [noun, verb] = others.length === 1 ? ['Batch operation', 'is'] : ['Batch operations', 'are'];
    out(`${noun} ${others.join(', ')} ${verb} running: the server may hold this one until a slot is free.`);
  }
  const jobId = `platform-ops-${action.name}-${randomUUID()}`;
  const identity = `platform-ops-starter incident ${action.name}`;
  await client.workflowService
    .startBatchOperation({ namespace, jobId, reason, visibilityQuery: matching, ...action.operation(identity) })
    .catch(async (err: unknown) => {
      if (isGrpcStatus(err, 'ResourceExhausted')) throw await busyError(client);
      throw queryRefused(err, query);
    });
  out(action.intro(plural(count, 'run'), jobId));
  out('Ctrl-C stops watching; the batch goes on in the server. Its counts move a page of 1,000 runs at a time.');
  const end = await watchBatch(client, jobId, action.done, count, out);
  if (end) out(`${countsLine(jobId, end, action.done)}.`);
  return { jobId, end };
}

async function runBatch(client: Client, action: BatchAction, opts: BatchOptions, out: Out): Promise<void> {
  const batch = await startAndWatch(client, action, opts, out);
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
      const action = resetAction(checkedResetPoint(opts.to!));
      const checked = checkedFlags(opts);
      return withStarter(({ client }) => runBatch(client, action, checked, out));
    });
  incident
    .command('cancel')
    .description('request cancellation of every running run a query matches, as one server batch operation')
    .requiredOption('--query <visibility query>', 'which runs (only running ones are cancelled)')
    .option('--reason <text>', 'why, recorded with the batch', 'platform-ops incident cancel')
    .action((opts: BatchOptions) => {
      const checked = checkedFlags(opts);
      return withStarter(({ client }) => runBatch(client, cancelAction, checked, out));
    });
}
