// The peer's worker: a plain SDK worker as a user starts one, with the peer's activities and the
// bench bundle, on the same settings as ours (WORKER_* from the environment, the payload codec, the
// runtime), so that worker CPU and memory compare like for like. Unversioned, on a task queue of its
// own: ours' task queue has a current deployment version, whose tasks an unversioned worker never gets.
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { loadDataConverter } from '@platform-ops/client';
import { loadTemporalSettings, loadWorkerSettings, localKeyFile } from '../../src/config/settings';
import { PlatformClient } from '../../src/platform-client/client';
import { installRuntime } from '../../src/process-entry';
import { createPeerActivities } from './peer-activities';

export async function runPeerWorker(
  env: NodeJS.ProcessEnv,
  opts: { workflowBundle: NonNullable<WorkerOptions['workflowBundle']>; onRunning: () => void },
): Promise<void> {
  const s = loadWorkerSettings(env);
  installRuntime(s);
  const temporal = loadTemporalSettings(env);
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      dataConverter: loadDataConverter(env, { localKeyFile: localKeyFile(env) }),
      workflowBundle: opts.workflowBundle,
      activities: createPeerActivities(PlatformClient.fromEnv(env)),
      maxConcurrentActivityTaskExecutions: s.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentWorkflowTaskExecutions: s.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxCachedWorkflows: s.WORKER_MAX_CACHED_WORKFLOWS,
      maxHeartbeatThrottleInterval: s.WORKER_MAX_HEARTBEAT_THROTTLE_SECONDS * 1000,
      shutdownGraceTime: `${s.WORKER_SHUTDOWN_GRACE_SECONDS}s`,
    });
    const running = worker.run();
    opts.onRunning();
    await running;
  } finally {
    await connection.close();
  }
}
