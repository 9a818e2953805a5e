// The worker: every workflow and activity on the task queue, activities given the platform client.
import { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { Command } from 'commander';
import { NativeConnection, Runtime, Worker, type BundleOptions, type WorkerOptions } from '@temporalio/worker';
import { installRuntime, runMain } from './process-entry';
import { loadDataConverter } from '@platform-ops/client';
import { createActivities } from './operations/activities';
import { platformOpsNexusHandlers } from './nexus/handlers';
import { limitInAttemptWaits } from './activities/retries';
import type { ArtifactStore } from './artifacts';
import {
  createArtifactStore,
  loadFetchPolicy,
  loadRateLimitSettings,
  loadTemporalSettings,
  loadWebhookSettings,
  loadWorkerSettings,
  localKeyFile,
} from './config/settings';
import type { FetchPolicy } from './fetching/policy';
import { loadPriceTable } from './operations/budgetGatedJob/activities-price';
import {
  addRegisterSearchAttributesOption,
  ensureSearchAttributes,
  isLocalAddress,
} from './namespace/search-attributes';
import { checkFirstCall, PlatformClient } from './platform-client/client';
import { pacingGauge, platformCallMetrics } from './metrics';
import { SharedPacing } from './ratelimit/shared-pacing';
import { startTracing, tracingClientInterceptors, tracingWorkerOptions, type Tracing } from './tracing';
import { WorkerGroup } from './ratelimit/worker-group';
import { serveCallbacks } from './webhooks/receiver';
import { callbackUrls, type CallbackUrls } from './webhooks/token';
import { makeCurrentVersion, workerVersion } from './worker-deployment';

/**
 * A native connection (less CPU than the JavaScript gRPC stack) for a client. A native error leaves `details` empty,
 * from which the client builds WorkflowNotFoundError and the like: without this, they would have no message.
 */
export function withServerMessages(connection: NativeConnection): NativeConnection {
  const service = connection.workflowService;
  const copyMessage = (err: unknown) => {
    const e = err as { message?: unknown; details?: unknown };
    if (err instanceof Error && e.details === '' && typeof e.message === 'string') e.details = e.message;
    throw err;
  };
  const workflowService = new Proxy(service, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        return result instanceof Promise ? result.catch(copyMessage) : result;
      };
    },
  });
  return Object.create(connection, { workflowService: { value: workflowService } }) as NativeConnection;
}

export interface PlatformWorkerOptions {
  connection: NativeConnection;
  /** On a connection of its own: waits on a ledger's Updates could crowd out the worker's polls. */
  client: Client;
  namespace: string;
  taskQueue: string;
  platform: PlatformClient;
  env?: NodeJS.ProcessEnv;
  artifacts?: ArtifactStore;
  fetchPolicy?: FetchPolicy;
  workflowBundle?: WorkerOptions['workflowBundle'];
  identity?: string;
  /** Set: media submits ask for callbacks (src/webhooks). */
  callbacks?: CallbackUrls;
  /** The workflow interceptors are bundled only when the worker bundles src/workflows itself. */
  tracing?: Tracing;
  /** Unset: unversioned, so workers of tests on one server share no deployment. */
  version?: WorkerDeploymentVersion;
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackCompiler = {
  webpack: {
    NormalModuleReplacementPlugin: new (
      re: RegExp,
      fn: (r: { request: string }) => void,
    ) => { apply(c: WebpackCompiler): void };
  };
};

/**
 * @platform-ops/client's entry also holds modules with Node imports, which the bundle leaves out by their bare name
 * only: a `node:` import is read as the bare name first.
 */
function withoutNodeScheme(config: WebpackConfig): WebpackConfig {
  const plugin = {
    apply: (compiler: WebpackCompiler) =>
      new compiler.webpack.NormalModuleReplacementPlugin(/^node:/, (r) => {
        r.request = r.request.slice('node:'.length);
      }).apply(compiler),
  };
  return { ...config, plugins: [...(config.plugins ?? []), plugin] };
}

/** zod and its schemas are stateless: loaded once per reusable V8 context (src/sandbox/preload.ts). */
export const WORKFLOW_BUNDLER_OPTIONS = {
  preloadModules: ['zod', require.resolve('./sandbox/preload')],
  ignoreModules: ['@temporalio/client', 'crypto', 'fs', 'path'],
  webpackConfigHook: withoutNodeScheme,
};

/** The worker of the task queue, and one per quota task queue for the paced submits (src/ratelimit). */
export async function createPlatformWorker(opts: PlatformWorkerOptions): Promise<WorkerGroup> {
  const { env = process.env, platform } = opts;
  const s = loadWorkerSettings(env);
  const pacing = new SharedPacing({
    client: opts.client,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    platform,
    settings: loadRateLimitSettings(env),
    identity: opts.identity,
    onPace: pacingGauge(),
  });
  await pacing.start();
  const activities = createActivities({
    platform,
    artifacts: opts.artifacts ?? createArtifactStore(env),
    temporal: opts.client,
    prices: loadPriceTable(env),
    fetchPolicy: opts.fetchPolicy ?? loadFetchPolicy(env, platform.config.baseUrl),
    pacing,
    callbacks: opts.callbacks,
  });
  limitInAttemptWaits(s.WORKER_IN_ATTEMPT_WAITS);
  const common: Omit<WorkerOptions, 'taskQueue'> = {
    ...(opts.tracing ? tracingWorkerOptions(opts.tracing) : {}),
    connection: opts.connection,
    namespace: opts.namespace,
    dataConverter: opts.client.options.dataConverter,
    // An explicit undefined fails the SDK's option check.
    ...(opts.identity ? { identity: opts.identity } : {}),
    activities,
    maxConcurrentActivityTaskExecutions: s.WORKER_MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: `${s.WORKER_SHUTDOWN_GRACE_SECONDS}s`,
    maxHeartbeatThrottleInterval: s.WORKER_MAX_HEARTBEAT_THROTTLE_SECONDS * 1000,
    // For runs first recorded unversioned and types that declare none: as before versioning.
    ...(opts.version
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version: opts.version,
            defaultVersioningBehavior: 'AUTO_UPGRADE',
          },
        }
      : {}),
  };
  try {
    const main = await Worker.create({
      ...common,
      taskQueue: opts.taskQueue,
      ...(opts.workflowBundle
        ? { workflowBundle: opts.workflowBundle }
        : { workflowsPath: require.resolve('./operations/workflows'), bundlerOptions: WORKFLOW_BUNDLER_OPTIONS }),
      maxConcurrentWorkflowTaskExecutions: s.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxCachedWorkflows: s.WORKER_MAX_CACHED_WORKFLOWS,
      // The task queue a Nexus endpoint targets (docs/backends.md#temporal-applications-nexus).
      nexusServices: [platformOpsNexusHandlers()],
    });
    const quotaWorkers = await Promise.all(
      pacing.taskQueues().map(({ operation, taskQueue }) =>
        Worker.create({
          ...common,
          taskQueue,
          // For a server with no task queue config API (older than 1.28).
          maxTaskQueueActivitiesPerSecond: pacing.workerRps(operation),
        }),
      ),
    );
    return new WorkerGroup(main, quotaWorkers, () => pacing.stop());
  } catch (err) {
    pacing.stop();
    throw err;
  }
}

/** Until SIGINT or SIGTERM, then drains; `onRunning` is told once it polls and its version is made current (or not). */
export async function runWorker(
  env: NodeJS.ProcessEnv = process.env,
  opts: { workflowBundle?: WorkerOptions['workflowBundle']; onRunning?: () => void } = {},
): Promise<void> {
  const settings = loadWorkerSettings(env);
  installRuntime(settings);
  const tracing = startTracing(env, 'platform-ops-worker');
  const temporal = loadTemporalSettings(env);
  const platform = PlatformClient.fromEnv(env, { onCall: platformCallMetrics() });
  const artifacts = createArtifactStore(env);
  const fetchPolicy = loadFetchPolicy(env, platform.config.baseUrl);
  const webhooks = loadWebhookSettings(env);
  const version = workerVersion(settings.WORKER_BUILD_ID);
  // Before connecting: a key that cannot be used stops the worker here, naming the setting, never the key.
  const dataConverter = loadDataConverter(env, { localKeyFile: localKeyFile(env) });
  const firstCall = await checkFirstCall(platform);
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  let clientConnection: NativeConnection | undefined;
  let receiver: Awaited<ReturnType<typeof serveCallbacks>>;
  try {
    clientConnection = await NativeConnection.connect(temporal.connectionOptions);
    const client = new Client({
      connection: withServerMessages(clientConnection),
      namespace: temporal.namespace,
      interceptors: tracing ? tracingClientInterceptors() : undefined,
      dataConverter,
    });
    // Before any task is polled: a missing attribute leaves every workflow that sets it stuck.
    await ensureSearchAttributes({
      connection: clientConnection,
      namespace: temporal.namespace,
      address: temporal.address,
      register: settings.WORKER_REGISTER_SEARCH_ATTRIBUTES ?? isLocalAddress(temporal.address),
      log: (msg) => {
        Runtime.instance().logger.info(msg);
      },
    });
    const worker = await createPlatformWorker({
      connection,
      client,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      platform,
      env,
      artifacts,
      fetchPolicy,
      workflowBundle: opts.workflowBundle,
      callbacks: callbackUrls(webhooks, temporal.namespace),
      tracing,
      version,
    });
    receiver = await serveCallbacks(webhooks, client, temporal.namespace);
    const running = worker.run();
    // Until a version is current, the server gives this build no new runs.
    const current = await Promise.race([
      makeCurrentVersion(client, temporal.namespace, version, settings.WORKER_MAKE_CURRENT === 'always'),
      running.then(() => false),
    ]).catch(async (err: unknown) => {
      worker.shutdown();
      await running;
      throw err;
    });
    opts.onRunning?.();
    Runtime.instance().logger.info('Worker started', {
      component: 'worker',
      taskQueue: temporal.taskQueue,
      namespace: temporal.namespace,
      address: temporal.connectionOptions.address,
      deployment: `${version.deploymentName}:${version.buildId} (${current ? 'current' : 'not current'})`,
      platform: platform.config.baseUrl,
      artifacts: artifacts.location,
      fetchAllowedHosts: fetchPolicy.allowedHosts.join(','),
      inputFileDir: fetchPolicy.inputFileDir,
      metricsPort: settings.METRICS_PORT,
      tracing: tracing ? 'on' : 'off',
      payloadEncryption: dataConverter.payloadCodecs ? 'on' : 'off',
      platformModels: firstCall.models,
      availableBalance: firstCall.availableBalance,
      webhookReceiver: receiver?.url,
      callbacks: webhooks.WEBHOOK_PUBLIC_URL !== undefined,
    });
    for (const warning of firstCall.warnings) Runtime.instance().logger.warn(`First call: ${warning}`);
    await running;
  } finally {
    await receiver?.close();
    await clientConnection?.close();
    await connection.close();
    await tracing?.shutdown();
  }
}

if (require.main === module) {
  const command = addRegisterSearchAttributesOption(new Command('worker'), (env) =>
    runWorker({ ...process.env, ...env }),
  );
  runMain('Worker stopped', () => command.parseAsync());
}
