// `describe`, `cancel`, `cancel-batch` and `list`: what an operator needs next to the Web UI.
import type { Command } from 'commander';
import { cancelBatchUpdate, SearchAttributes, statusQuery } from '@platform-ops/client';
import { CliError, ExitCode, orCliError, tableRow, withStarter, type Out } from '../../cli/command';

export function addInspectCommands(program: Command, out: Out): void {
  program
    .command('describe')
    .argument('<workflowId>')
    .description('show a workflow: status, search attributes, business status')
    .action((workflowId: string) =>
      withStarter(async ({ client }) => {
        const handle = client.workflow.getHandle(workflowId);
        const d = await orCliError(handle.describe(), workflowId);
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
      }),
    );
  program
    .command('cancel')
    .argument('<workflowId>')
    .description('ask a workflow to cancel')
    .action((workflowId: string) =>
      withStarter(async ({ client }) => {
        await orCliError(client.workflow.getHandle(workflowId).cancel(), workflowId);
        out(`Asked workflow ${workflowId} to cancel.`);
      }),
    );
  program
    .command('cancel-batch')
    .argument('<workflowId>')
    .option('--reason <text>', 'why, recorded in the result')
    .description("cancel a batchJob's platform batch (the cancelBatch Update) and print its final state")
    .action((workflowId: string, opts: { reason?: string }) =>
      withStarter(async ({ client }) => {
        const update = client.workflow
          .getHandle(workflowId)
          .executeUpdate(cancelBatchUpdate, { args: [{ reason: opts.reason }] });
        const final = await orCliError(update, workflowId);
        const c = final.requestCounts;
        out(
          `Batch ${final.batchId} is ${final.status}` +
            (c ? ` (${c.completed} completed, ${c.failed} failed of ${c.total}).` : '.'),
        );
      }),
    );
  program
    .command('list')
    .description('list workflows (newest first)')
    .option('--query <visibility query>', `e.g. "PlatformOperation = 'renewInstance'"`)
    .option('--limit <n>', 'at most this many', '20')
    .action(async (opts: { query?: string; limit: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) {
        throw new CliError(`--limit must be a whole number of at least 1, not "${opts.limit}".`, ExitCode.Usage);
      }
      await withStarter(async ({ client }) => {
        let n = 0;
        const widths = [36, 18, 12, 22];
        out(tableRow(widths, ['WORKFLOW ID', 'TYPE', 'STATUS', 'PLATFORM STATUS', 'STARTED']));
        for await (const w of client.workflow.list({ query: opts.query })) {
          const platformStatus = w.typedSearchAttributes.get(SearchAttributes.status) ?? '';
          out(tableRow(widths, [w.workflowId, w.type, w.status.name, platformStatus, w.startTime.toISOString()]));
          if (++n >= limit) break;
        }
        if (n === 0) out('(no workflows)');
      });
    });
}
