// `incident rerun-failed`: a new run of each failed run a query matches, of the same type with the same input
// (docs/operations.md#bulk-actions). The new run's id is derived from the failed run's, so running the command
// again starts nothing more. A paid type (src/api/paid.ts) may have been charged already: rerun only when told.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { encodeToPayload } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import { IDEMPOTENCY_MEMO, STARTABLE_WORKFLOW_TYPES } from '@platform-ops/client';
import { paidFor } from '../../api/paid';
import { isGrpcStatus, queryRefused, withStarter, type Out } from '../../cli/command';
import { checkedQuery, forEachRun } from './bulk';

type StartedAttributes = temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes;
type FailedRun = Pick<WorkflowExecutionInfo, 'workflowId' | 'runId'>;
const { WorkflowIdReusePolicy, WorkflowIdConflictPolicy, EventType } = temporal.api.enums.v1;

/** The memo key that marks a rerun, and names the run it reruns (ids only). */
const RERUN_MEMO = 'rerunOf';

interface RerunOptions {
  query: string;
  allowPaid?: boolean;
  dryRun?: boolean;
}

type Verdict = 'started' | 'already rerun' | 'refused';

async function startedEvent(client: Client, run: FailedRun) {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: run.workflowId, runId: run.runId },
    maximumPageSize: 1,
  });
  const first = history?.events?.[0];
  if (first?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
    throw new Error(`The history of ${run.workflowId} (run ${run.runId}) does not begin with its start.`);
  }
  return { attrs: first.workflowExecutionStartedEventAttributes!, userMetadata: first.userMetadata };
}

/** Why a failed run is not rerun whatever the flags, or undefined. */
function neverRerun(attrs: StartedAttributes, type: string): string | undefined {
  if (attrs.memo?.fields?.[RERUN_MEMO]) {
    return 'it is itself a rerun that failed too: find out why before starting it a third time';
  }
  // Alone, a child would run outside what its parent holds for it (a budget reservation).
  if (attrs.parentWorkflowExecution) {
    return `a child of ${attrs.parentWorkflowExecution.workflowId}: rerun that workflow instead`;
  }
  if (!(STARTABLE_WORKFLOW_TYPES as string[]).includes(type)) {
    return `${type || 'its type'} is not a workflow type callers start here`;
  }
  return undefined;
}

/** The failed run's own start, its input passed through still encrypted (the keyring keeps older keys, src/codec). */
async function rerunRequest(
  client: Client,
  run: FailedRun,
  { attrs, userMetadata }: Awaited<ReturnType<typeof startedEvent>>,
): Promise<temporal.api.workflowservice.v1.IStartWorkflowExecutionRequest> {
  const memo = { ...attrs.memo?.fields };
  // The idempotency memo names the call that started the failed run, which did not start this one.
  delete memo[IDEMPOTENCY_MEMO];
  memo[RERUN_MEMO] = await encodeToPayload(client.options.loadedDataConverter, {
    workflowId: run.workflowId,
    runId: run.runId,
  });
  // The server's own attributes (a schedule's TemporalScheduledById …) would say the rerun came from there.
  const searchAttributes = Object.fromEntries(
    Object.entries(attrs.searchAttributes?.indexedFields ?? {}).filter(([name]) => !name.startsWith('Temporal')),
  );
  return {
    namespace: client.options.namespace,
    // One id per failed run, so that a second start of it is refused.
    workflowId: `${run.workflowId}-rerun-${run.runId.slice(0, 8)}`,
    workflowType: attrs.workflowType,
    taskQueue: { name: attrs.taskQueue?.name },
    input: attrs.input,
    workflowExecutionTimeout: attrs.workflowExecutionTimeout,
    workflowRunTimeout: attrs.workflowRunTimeout,
    workflowTaskTimeout: attrs.workflowTaskTimeout,
    retryPolicy: attrs.retryPolicy,
    memo: { fields: memo },
    searchAttributes: { indexedFields: searchAttributes },
    userMetadata,
    priority: attrs.priority,
    identity: 'platform-ops-starter incident rerun-failed',
    requestId: randomUUID(),
    // Any earlier run of this id, open or closed, means the failed run was rerun already.
    workflowIdReusePolicy: WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
  };
}

/** For --dry-run, which starts nothing to find out. */
async function exists(client: Client, workflowId: string): Promise<boolean> {
  const execution = { workflowId };
  return client.workflowService.describeWorkflowExecution({ namespace: client.options.namespace, execution }).then(
    () => true,
    (err: unknown) => {
      if (isGrpcStatus(err, 'NotFound')) return false;
      throw err;
    },
  );
}

async function rerunOne(client: Client, run: FailedRun, opts: RerunOptions): Promise<[Verdict, string]> {
  const started = await startedEvent(client, run);
  const type = started.attrs.workflowType?.name ?? '';
  const failed = `${run.workflowId} (run ${run.runId}, ${type})`;
  const never = neverRerun(started.attrs, type);
  if (never) return ['refused', `Refused ${failed}: ${never}`];
  const paid = paidFor(type);
  if (paid && !opts.allowPaid) {
    return ['refused', `Refused ${failed}: ${type} ${paid}, and may be charged again; --allow-paid reruns it`];
  }
  const request = await rerunRequest(client, run, started);
  const id = request.workflowId!;
  if (opts.dryRun) {
    if (await exists(client, id)) return ['already rerun', `Already rerun ${failed}: ${id}`];
    return ['started', `Would start ${id}, a rerun of ${failed}`];
  }
  try {
    await client.workflowService.startWorkflowExecution(request);
  } catch (err) {
    if (isGrpcStatus(err, 'AlreadyExists')) return ['already rerun', `Already rerun ${failed}: ${id}`];
    throw err;
  }
  return ['started', `Started ${id}, a rerun of ${failed}`];
}

async function rerunFailed(client: Client, opts: RerunOptions, out: Out): Promise<void> {
  const query = `(${opts.query}) AND ExecutionStatus = 'Failed'`;
  const tally: Record<Verdict, number> = { started: 0, 'already rerun': 0, refused: 0 };
  await forEachRun(client, query, async (run) => {
    const [verdict, line] = await rerunOne(client, run, opts);
    tally[verdict]++;
    out(line);
  }).catch((err: unknown) => {
    throw queryRefused(err, opts.query);
  });
  if (tally.started + tally['already rerun'] + tally.refused === 0) {
    out(`No failed run matches: ${query}. Nothing rerun.`);
    return;
  }
  out(
    `Failed runs matching ${query}: ${tally.started} ${opts.dryRun ? 'would start' : 'started'}, ` +
      `${tally['already rerun']} already rerun, ${tally.refused} refused${opts.dryRun ? ' (--dry-run: nothing started)' : ''}.`,
  );
}

export function addRerunCommand(incident: Command, out: Out): void {
  incident
    .command('rerun-failed')
    .description('start each failed run a query matches again: same type, same input, a new workflow id')
    .requiredOption('--query <visibility query>', "which runs (only failed ones are rerun: ExecutionStatus = 'Failed')")
    .option('--allow-paid', 'rerun paid types too (a new generation, batch, renewal … is charged again)')
    .option('--dry-run', 'list what would be started, and start nothing')
    .action((opts: RerunOptions) => {
      const checked = { ...opts, query: checkedQuery(opts.query) };
      return withStarter(({ client }) => rerunFailed(client, checked, out));
    });
}
