// `npm run nexus-caller -- <workflowType> <flags as the starter takes them>`: the caller workflow of
// src/nexus/caller-workflow.ts, run in the callers' namespace against the Nexus endpoint, as another team's would.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Command, Option } from 'commander';
import { NEXUS_ENDPOINT } from '@platform-ops/client';
import { CliError, ExitCode, orCliError, runProgram, withStarter } from '../cli/command';
import type { InputFlags } from '../cli/flags';
import { loadWorkerSettings } from '../config/settings';
import { installRuntime } from '../process-entry';
import { settleLogs } from '../logging';
import {
  addInputOptions,
  addPriorityOptions,
  assertWorkflowType,
  buildWorkflowInput,
  priorityOf,
  type PriorityFlags,
} from './workflow-inputs';
import { WORKFLOW_BUNDLER_OPTIONS } from '../worker';
import type { NexusCallerInput } from '../nexus/caller-workflow';
import { CALLERS_NAMESPACE } from '../nexus/setup';

/** The callers' own queue: a caller restarted after a crash picks up the runs the one before left. */
export const CALLER_TASK_QUEUE = 'platform-ops-callers';

interface CallerOptions extends InputFlags, PriorityFlags {
  idempotencyKey?: string;
  retryFailed?: boolean;
  nexusEndpoint: string;
  namespace: string;
  timeout: string;
}

function program(): Command {
  const command = addInputOptions(
    new Command('nexus-caller')
      .exitOverride()
      .description('run one operation through the Nexus endpoint from a caller workflow in another namespace')
      .argument('<workflowType>', 'the operation: a workflow type the starter starts')
      .option('--idempotency-key <key>', "the caller's name for this request: a repeat answers with its run")
      .option('--retry-failed', 'with --idempotency-key: a key whose run failed may start a new run')
      .option('--nexus-endpoint <name>', 'the Nexus endpoint', NEXUS_ENDPOINT)
      .option('--namespace <name>', "the caller's namespace", CALLERS_NAMESPACE)
      .addOption(new Option('--timeout <seconds>', 'how long the caller gives the operation').default('86400')),
  );
  return addPriorityOptions(command).action(async (type: string, opts: CallerOptions) => {
    const workflowType = assertWorkflowType(type);
    const input = buildWorkflowInput(workflowType, opts);
    const call: NexusCallerInput = {
      workflowType,
      start: { input, idempotencyKey: opts.idempotencyKey, retryFailedRuns: opts.retryFailed, ...priorityOf(opts) },
      endpoint: opts.nexusEndpoint,
      timeoutSeconds: Number(opts.timeout),
    } as NexusCallerInput;
    await withStarter(async ({ client, settings }) => {
      const caller = new Client({
        connection: client.connection,
        namespace: opts.namespace,
        dataConverter: client.options.dataConverter,
      });
      // A caller to an endpoint the server lacks would retry its workflow task for ever: say so instead.
      const { endpoints } = await client.connection.operatorService.listNexusEndpoints({ name: opts.nexusEndpoint });
      if (!endpoints?.length) {
        throw new CliError(
          `${settings.address} has no Nexus endpoint named ${opts.nexusEndpoint}: \`npm start\` and \`npm run ` +
            `cluster\` create ${NEXUS_ENDPOINT}; elsewhere, create it as docs/backends.md#temporal-applications-nexus says.`,
          ExitCode.NotFound,
        );
      }
      const connection = await NativeConnection.connect(settings.connectionOptions);
      try {
        const worker = await Worker.create({
          connection,
          namespace: opts.namespace,
          taskQueue: CALLER_TASK_QUEUE,
          workflowsPath: require.resolve('../nexus/caller-workflow'),
          bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
          dataConverter: client.options.dataConverter,
        });
        const workflowId = `nexusCaller-${workflowType}-${randomUUID().slice(0, 8)}`;
        process.stderr.write(
          `Calling ${workflowType} through ${opts.nexusEndpoint} from ${opts.namespace}/${workflowId}…\n`,
        );
        const result: unknown = await worker.runUntil(
          orCliError(
            caller.workflow.execute('nexusCaller', { workflowId, taskQueue: CALLER_TASK_QUEUE, args: [call] }),
            workflowId,
          ),
        );
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } finally {
        await connection.close();
      }
    });
  });
}

if (require.main === module) {
  // The result is stdout's only line: the worker's own (its bundle; no activities, which a caller has none of) are
  // noise here, so errors only, unless LOG_LEVEL says.
  installRuntime({ ...loadWorkerSettings(), ...(process.env.LOG_LEVEL ? {} : { LOG_LEVEL: 'ERROR' as const }) });
  void runProgram(program(), process.argv).then(async (code) => {
    await settleLogs();
    process.exit(code);
  });
}
