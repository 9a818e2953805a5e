// `endpoint …`: deploy, scale, remove, show and list serverless endpoints, each through its endpoint's own run.
import { WorkflowNotFoundError, type Client, type WorkflowUpdateHandle } from '@temporalio/client';
import type { Command } from 'commander';
import type { z } from 'zod';
import {
  DeployEndpointRequest,
  deployEndpoint,
  formatIssues,
  parseOrThrow,
  type EndpointChangeResult,
  type EndpointConfigInput,
  type EndpointView,
  endpointStateQuery,
  removeEndpointUpdate,
  ScaleEndpointRequest,
  scaleEndpointUpdate,
  serverlessEndpointWorkflowId,
  WorkflowType,
} from '@platform-ops/client';
import { CliError, ExitCode, isClosedWorkflow, orCliError, tableRow, withStarter, type Out } from '../../cli/command';
import { num, parseJson, readText } from '../../cli/flags';
import { formatAmount } from '../../platform/money';

interface DeployFlags {
  configFile?: string;
  image?: string;
  product?: string;
  minWorkers?: string;
  maxWorkers?: string;
  gpusPerWorker?: string;
  port?: string;
  healthPath?: string;
  policy?: string;
  policyValue?: string;
  idleTimeout?: string;
  maxConcurrent?: string;
  requestTimeout?: string;
  rootfsGb?: string;
  appName?: string;
  command?: string;
  cuda?: string;
  env: string[];
  wait?: boolean;
  refuseIfBusy?: boolean;
  budgetMember?: string;
  budgetHours?: string;
  unhealthyTimeout?: string;
}

/** The emulator's serverless product and a small image: `endpoint deploy demo` works on the local stack as it is. */
const DEFAULTS = { image: 'registry.example/hello-gpu:1', product: 'gpu-l40s-48g', port: 8080, healthPath: '/health' };

function endpointConfig(name: string, f: DeployFlags): EndpointConfigInput {
  const base = f.configFile ? (parseJson(readText(f.configFile, '--config-file'), f.configFile) as object) : {};
  const n = (value: string | undefined, flag: string, fallback: number) => num(value, flag) ?? fallback;
  const envs = f.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`--env takes KEY=VALUE, not "${pair}".`, ExitCode.Usage);
    return { key: pair.slice(0, at), value: pair.slice(at + 1) };
  });
  const flagged: EndpointConfigInput = {
    name,
    ...(f.appName && { appName: f.appName }),
    workerConfig: {
      minNum: n(f.minWorkers, '--min-workers', 1),
      maxNum: n(f.maxWorkers, '--max-workers', 2),
      freeTimeout: n(f.idleTimeout, '--idle-timeout', 300),
      maxConcurrent: n(f.maxConcurrent, '--max-concurrent', 1),
      gpuNum: n(f.gpusPerWorker, '--gpus-per-worker', 1),
      requestTimeout: n(f.requestTimeout, '--request-timeout', 300),
      ...(f.cuda && { cudaVersion: f.cuda }),
    },
    ports: [{ port: n(f.port, '--port', DEFAULTS.port) }],
    policy: { type: (f.policy ?? 'queue') as 'queue', value: n(f.policyValue, '--policy-value', 60) },
    image: { image: f.image ?? DEFAULTS.image, ...(f.command && { command: f.command }) },
    products: [{ id: f.product ?? DEFAULTS.product }],
    rootfsSize: n(f.rootfsGb, '--rootfs-gb', 100),
    envs,
    healthy: { path: f.healthPath ?? DEFAULTS.healthPath },
  };
  // A config file gives the whole config; flags given on the line win over it.
  return f.configFile ? { ...flagged, ...base, name } : flagged;
}

const checked = (schema: z.ZodType, request: unknown): void =>
  void parseOrThrow(schema, request, (issues) => new CliError(`Invalid ${formatIssues(issues)}`, ExitCode.Usage));

const handleOf = (client: Client, name: string) => client.workflow.getHandle(serverlessEndpointWorkflowId(name));

const onRun = <T>(promise: Promise<T>, name: string): Promise<T> =>
  promise.catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError || isClosedWorkflow(err)) {
      throw new CliError(
        `No endpoint named ${name} is deployed here: \`endpoint deploy ${name}\` first.`,
        ExitCode.NotFound,
      );
    }
    throw err;
  });

function describe(v: EndpointView): string[] {
  const { running, healthy, total } = v.workers;
  const workers = `${running} running, ${healthy} healthy of ${total} (min ${v.minWorkers ?? '-'}, max ${v.maxWorkers ?? '-'})`;
  const last = v.lastChange
    ? `${v.lastChange.kind} ${v.lastChange.outcome}${v.lastChange.message ? `: ${v.lastChange.message}` : ''}`
    : 'none';
  return [
    `Endpoint ${v.name}: ${v.status}${v.platformState ? ` (platform: ${v.platformState})` : ''}`,
    `  id ${v.endpointId ?? '-'}  url ${v.url ?? '-'}`,
    `  workers ${workers}`,
    `  cost so far ${formatAmount(v.costSoFar)} (${Math.round(v.workerSeconds)} worker-seconds seen)`,
    `  last change ${last}${v.reason && v.reason !== v.lastChange?.message ? `; platform says: ${v.reason}` : ''}`,
  ];
}

/** Prints each new status while the change runs, then its outcome. */
async function follow(client: Client, name: string, update: WorkflowUpdateHandle<EndpointChangeResult>, out: Out) {
  let last = '';
  let done = false;
  const watching = (async () => {
    while (!done) {
      const v = await handleOf(client, name)
        .query(endpointStateQuery)
        .catch(() => undefined);
      const line =
        v &&
        `  ${v.status}${v.platformState ? ` · ${v.platformState}` : ''} · ${v.workers.running} running, ` +
          `${v.workers.healthy} healthy · ${formatAmount(v.costSoFar)} so far`;
      if (line && line !== last) out((last = line));
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  try {
    const result = await orCliError(update.result(), serverlessEndpointWorkflowId(name));
    const how = result.alreadyApplied ? ' (found made already: nothing made twice)' : '';
    out(`Endpoint ${name}: ${result.kind} done${how}; ${result.workers.healthy} healthy, url ${result.url ?? '-'}`);
  } finally {
    done = true;
    await watching;
  }
}

async function sent(
  client: Client,
  name: string,
  update: WorkflowUpdateHandle<EndpointChangeResult>,
  wait: boolean,
  out: Out,
) {
  if (wait) return follow(client, name, update, out);
  out(
    `Endpoint ${name}: accepted (workflow ${serverlessEndpointWorkflowId(name)}); \`endpoint show ${name}\` follows it.`,
  );
}

const QUERY_TIMEOUT_MS = 5_000;

const withQueryTimeout = <T>(query: Promise<T>): Promise<T | undefined> =>
  Promise.race([
    query.catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), QUERY_TIMEOUT_MS).unref()),
  ]);

export function addEndpointCommands(program: Command, out: Out): void {
  const endpoint = program.command('endpoint').description('serverless endpoints: deploy, scale, remove, show, list');
  endpoint
    .command('deploy')
    .argument('<name>')
    .description('create the endpoint, or update it to this config; a failed update goes back to the last that served')
    .option('--config-file <path>', 'the whole endpoint config as JSON (platform-notes fields)')
    .option('--image <ref>', `the worker image (default ${DEFAULTS.image})`)
    .option('--product <id>', `the serverless GPU product (default ${DEFAULTS.product}, the emulator's)`)
    .option('--min-workers <n>', 'workers kept serving (default 1; 0 scales to zero)')
    .option('--max-workers <n>', 'workers at most (default 2)')
    .option('--gpus-per-worker <n>', 'default 1')
    .option('--port <n>', `the port the image serves (default ${DEFAULTS.port})`)
    .option('--health-path <path>', `a worker serves while GET path answers 200 (default ${DEFAULTS.healthPath})`)
    .option('--policy <type>', 'scaling on queue wait (queue) or queued requests (concurrency); default queue')
    .option('--policy-value <n>', 'seconds of queue wait or requests queued (default 60)')
    .option('--idle-timeout <s>', 'idle seconds before an extra worker is released (default 300)')
    .option('--max-concurrent <n>', 'requests one worker takes at once (default 1)')
    .option('--request-timeout <s>', 'default 300')
    .option('--rootfs-gb <n>', 'default 100')
    .option('--app-name <name>', 'part of the URL; fixed once created')
    .option('--command <cmd>', "the image's command")
    .option('--cuda <version>', 'a CUDA version of the limit ranges')
    .option('--env <KEY=VALUE>', 'an environment variable (repeatable)', (v: string, all: string[]) => [...all, v], [])
    .option('--wait', 'wait until it serves with its minimum of healthy workers, showing progress')
    .option('--refuse-if-busy', 'refuse at once if another change is being applied, instead of queueing')
    .option('--budget-member <id>', "gate the deploy on this member's budget (with --budget-hours)")
    .option('--budget-hours <n>', 'hours of the minimum workers the reservation covers (default 24)')
    .option('--unhealthy-timeout <s>', 'fail once workers run this long without turning healthy (default 600)')
    .action((name: string, f: DeployFlags) =>
      withStarter(async ({ client, settings }) => {
        const budget = f.budgetMember && {
          memberId: f.budgetMember,
          hours: num(f.budgetHours, '--budget-hours') ?? 24,
        };
        const whenBusy = f.refuseIfBusy ? 'refuse' : 'wait';
        const unhealthyTimeoutSeconds = num(f.unhealthyTimeout, '--unhealthy-timeout');
        const request = {
          config: endpointConfig(name, f),
          whenBusy,
          ...(budget && { budget }),
          ...(unhealthyTimeoutSeconds !== undefined && { unhealthyTimeoutSeconds }),
        } as const;
        checked(DeployEndpointRequest, request);
        const update = await orCliError(
          deployEndpoint(client, request, { taskQueue: settings.taskQueue }),
          serverlessEndpointWorkflowId(name),
        );
        await sent(client, name, update, !!f.wait, out);
      }),
    );
  endpoint
    .command('scale')
    .argument('<name>')
    .requiredOption('--min-workers <n>')
    .requiredOption('--max-workers <n>')
    .option('--wait', 'wait until it serves with the new minimum of healthy workers')
    .option('--refuse-if-busy', 'refuse at once if another change is being applied')
    .description('set the minimum and maximum workers of a deployed endpoint')
    .action((name: string, f: { minWorkers: string; maxWorkers: string; wait?: boolean; refuseIfBusy?: boolean }) =>
      withStarter(async ({ client }) => {
        const request = {
          minWorkers: num(f.minWorkers, '--min-workers')!,
          maxWorkers: num(f.maxWorkers, '--max-workers')!,
          whenBusy: f.refuseIfBusy ? 'refuse' : 'wait',
        } as const;
        checked(ScaleEndpointRequest, request);
        const handle = handleOf(client, name);
        const update = await onRun(
          handle.startUpdate(scaleEndpointUpdate, { args: [request], waitForStage: 'ACCEPTED' }),
          name,
        );
        await sent(client, name, update, !!f.wait, out);
      }),
    );
  endpoint
    .command('remove')
    .argument('<name>')
    .option('--wait', 'wait until the platform no longer lists it')
    .description('delete the endpoint (every worker stops billing), and end its run')
    .action((name: string, f: { wait?: boolean }) =>
      withStarter(async ({ client }) => {
        const update = await onRun(
          handleOf(client, name).startUpdate(removeEndpointUpdate, {
            args: [{ whenBusy: 'wait' }],
            waitForStage: 'ACCEPTED',
          }),
          name,
        );
        await sent(client, name, update, !!f.wait, out);
      }),
    );
  endpoint
    .command('show')
    .argument('<name>')
    .description("the endpoint's state, workers, URL and cost so far")
    .action((name: string) =>
      withStarter(async ({ client }) => {
        for (const line of describe(await onRun(handleOf(client, name).query(endpointStateQuery), name))) out(line);
      }),
    );
  endpoint
    .command('list')
    .description('every endpoint with a run here, and its state')
    .action(() =>
      withStarter(async ({ client, settings }) => {
        const query =
          `WorkflowType = '${WorkflowType.serverlessEndpoint}' AND ExecutionStatus = 'Running' ` +
          `AND TaskQueue = '${settings.taskQueue}'`;
        const widths = [24, 18, 12, 10];
        out(tableRow(widths, ['NAME', 'STATUS', 'HEALTHY', 'COST']));
        let n = 0;
        for await (const run of client.workflow.list({ query })) {
          // A run whose workers are gone would hold the query until the server gives up: its row says so instead.
          const v = await withQueryTimeout(client.workflow.getHandle(run.workflowId).query(endpointStateQuery));
          const name = run.workflowId.slice(serverlessEndpointWorkflowId('').length);
          out(
            tableRow(widths, [
              name,
              v?.status ?? '?',
              v ? `${v.workers.healthy}/${v.workers.total}` : '?',
              v ? formatAmount(v.costSoFar) : '?',
            ]),
          );
          n++;
        }
        if (n === 0) out('No endpoint runs: `endpoint deploy <name>` makes one.');
      }),
    );
}
