// `describe`, `cancel` and `list`: what an operator needs next to the Web UI.
import { cancelBatchUpdate } from '../../workflows/batch/contract';
import { SearchAttributes, statusQuery } from '../../api/contract';
import { withStarter } from '../connect';
import { CliError, ExitCode } from '../exit-codes';
import { toCliError } from '../failures';

type Out = (line: string) => void;

export async function describeCommand(workflowId: string, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    const handle = client.workflow.getHandle(workflowId);
    const d = await handle.describe().catch((err: unknown) => {
      throw toCliError(err, workflowId);
    });
    out(`Workflow ${d.workflowId} (${d.type}), run ${d.runId}`);
    out(`  status:     ${d.status.name}`);
    out(`  task queue: ${d.taskQueue}`);
    out(`  started:    ${d.startTime.toISOString()}${d.closeTime ? `, closed ${d.closeTime.toISOString()}` : ''}`);
    for (const [name, key] of Object.entries(SearchAttributes)) {
      const value = d.typedSearchAttributes.get(key);
      if (value !== undefined) out(`  ${key.name.padEnd(20)} ${String(value)} (${name})`);
    }
    // The business status needs a worker to answer; a closed run without one just has no detail.
    const status = await handle.query(statusQuery).catch(() => undefined);
    if (status) out(`  detail:     ${JSON.stringify(status.detail ?? {})}`);
  });
}

export async function cancelCommand(workflowId: string, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    await client.workflow
      .getHandle(workflowId)
      .cancel()
      .catch((err: unknown) => {
        throw toCliError(err, workflowId);
      });
    out(`Asked workflow ${workflowId} to cancel.`);
  });
}

export async function listCommand(opts: { query?: string; limit?: string }, out: Out): Promise<void> {
  const limit = Number(opts.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new CliError(`--limit must be a whole number of at least 1, not "${opts.limit}".`, ExitCode.Usage);
  }
  await withStarter(async ({ client }) => {
    let n = 0;
    out(
      `${'WORKFLOW ID'.padEnd(36)} ${'TYPE'.padEnd(18)} ${'STATUS'.padEnd(12)} ${'PLATFORM STATUS'.padEnd(22)} STARTED`,
    );
    for await (const w of client.workflow.list({ query: opts.query })) {
      const platformStatus = w.typedSearchAttributes.get(SearchAttributes.status) ?? '';
      out(
        `${w.workflowId.padEnd(36)} ${w.type.padEnd(18)} ${w.status.name.padEnd(12)} ${platformStatus.padEnd(22)} ${w.startTime.toISOString()}`,
      );
      if (++n >= limit) break;
    }
    if (n === 0) out('(no workflows)');
  });
}

/** `cancel-batch`: the batchJob's cancelBatch Update; answers once the platform batch has stopped. */
export async function cancelBatchCommand(workflowId: string, opts: { reason?: string }, out: Out): Promise<void> {
  await withStarter(async ({ client }) => {
    const final = await client.workflow
      .getHandle(workflowId)
      .executeUpdate(cancelBatchUpdate, { args: [{ reason: opts.reason }] })
      .catch((err: unknown) => {
        throw toCliError(err, workflowId);
      });
    const c = final.requestCounts;
    out(
      `Batch ${final.batchId} is ${final.status}` +
        (c ? ` (${c.completed} completed, ${c.failed} failed of ${c.total}).` : '.'),
    );
  });
}
