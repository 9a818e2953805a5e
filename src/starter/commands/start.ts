// `start <workflow>`, and `attach task|batch <id>` (docs/starter.md#attach-task-or-batch).
import type { WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import {
  attachBatch,
  attachTask,
  STARTABLE_WORKFLOW_TYPES,
  type StartableWorkflowType,
  type Started,
  startWorkflow,
  WorkflowType,
} from '@platform-ops/client';
import { CliError, ExitCode, orCliError, withStarter, type Out } from '../../cli/command';
import { waitWithProgress } from '../../cli/progress';
import {
  addInputOptions,
  addPriorityOptions,
  assertWorkflowType,
  buildWorkflowInput,
  flagUsage,
  priorityOf,
  watchOf,
  type PriorityFlags,
} from '../workflow-inputs';
import type { InputFlags } from '../../cli/flags';

const TASK_QUEUE_HELP = 'task queue (default: TEMPORAL_TASK_QUEUE or platform-ops)';

interface StartOptions extends InputFlags, PriorityFlags {
  id?: string;
  idempotencyKey?: string;
  retryFailed?: boolean;
  wait?: boolean;
  taskQueue?: string;
}

export function addStartCommands(program: Command, out: Out): void {
  const startCommand = addInputOptions(
    program
      .command('start')
      .description(
        `start a workflow by name: ${STARTABLE_WORKFLOW_TYPES.join(', ')}\n` +
          STARTABLE_WORKFLOW_TYPES.map((t) => `  ${t}: ${flagUsage(t)}`).join('\n'),
      )
      .argument('<workflow>', 'workflow type')
      .option('--id <workflowId>', 'business workflow id (default: <workflow>-<random>)')
      .option(
        '--idempotency-key <key>',
        'start at most once for this key: a repeat answers with the run the key started (workflow id <workflow>:<key>)',
      )
      .option('--retry-failed', 'with --idempotency-key: a key whose run failed may start a new run')
      .option('--task-queue <name>', TASK_QUEUE_HELP)
      .option('--wait', 'wait for the result and print it'),
  );
  addPriorityOptions(startCommand).action(async (type: string, opts: StartOptions) => {
    const workflowType = assertWorkflowType(type);
    const input = buildWorkflowInput(workflowType, opts);
    if (opts.id !== undefined && opts.idempotencyKey !== undefined) {
      throw new CliError('--id and --idempotency-key both name the workflow: give one of them.', ExitCode.Usage);
    }
    await withStarter(async ({ client, settings }) => {
      const start = startWorkflow(client, workflowType, input as never, {
        taskQueue: opts.taskQueue ?? settings.taskQueue,
        workflowId: opts.id ?? `${workflowType}-${crypto.randomUUID().slice(0, 8)}`,
        idempotencyKey: opts.idempotencyKey,
        retryFailedRuns: opts.retryFailed,
        ...priorityOf(opts),
      });
      const { handle, workflowId, started } = await orCliError(start, opts.id);
      out(
        started
          ? `Started ${workflowType} as workflow ${workflowId}.`
          : `Already started for this idempotency key: workflow ${workflowId} (nothing new was started).`,
      );
      if (opts.wait) await waitAndPrint(workflowType, handle, out);
    });
  });
  program
    .command('attach')
    .argument('<kind>', 'task (a mediaGeneration) or batch (a batchJob)')
    .argument('<id>', 'the platform task id or batch id, made elsewhere')
    .description(
      'follow an existing task or batch to its end and keep its outputs; nothing paid is sent. ' +
        'Attaching to the same id again answers with the first run (workflow id <workflow>:attach-<kind>:<id>)',
    )
    .option('--member-id <id>', 'who paid, for the search attributes')
    .option('--task-queue <name>', TASK_QUEUE_HELP)
    .option('--wait', 'wait for the result and print it')
    .action(async (kind: string, id: string, opts: { wait?: boolean; taskQueue?: string; memberId?: string }) => {
      if (kind !== 'task' && kind !== 'batch') {
        throw new CliError(`attach takes "task <taskId>" or "batch <batchId>", not "${kind}".`, ExitCode.Usage);
      }
      const workflowType = kind === 'task' ? WorkflowType.mediaGeneration : WorkflowType.batchJob;
      await withStarter(async ({ client, settings }) => {
        const start = { taskQueue: opts.taskQueue ?? settings.taskQueue, options: { memberId: opts.memberId } };
        const attach = kind === 'task' ? attachTask(client, id, start) : attachBatch(client, id, start);
        const { handle, workflowId, started } = await orCliError<Started<typeof workflowType>>(attach);
        out(
          started
            ? `Attached to ${kind} ${id}: following it as ${workflowType} workflow ${workflowId}.`
            : `Already attached to ${kind} ${id}: workflow ${workflowId} (nothing new was started).`,
        );
        if (opts.wait) await waitAndPrint(workflowType, handle, out);
      });
    });
}

/** Its progress on stderr, then the result and its summary on stdout. */
async function waitAndPrint(workflowType: StartableWorkflowType, handle: WorkflowHandle, out: Out): Promise<void> {
  const view = watchOf(workflowType);
  const result: unknown = await orCliError(
    view
      ? waitWithProgress(handle, view, { codecs: handle.client.options.loadedDataConverter.payloadCodecs })
      : handle.result(),
    handle.workflowId,
  );
  out(JSON.stringify(result, null, 2));
  for (const line of view?.summary?.(result) ?? []) out(line);
}
