// The benchmark's worker, in a process of its own so that its memory and CPU are its own: the service's
// worker (src/worker.ts's runWorker, its settings from the environment),
// with the bench workflows (every workflow of the service, plus the SDK's floor and the Temporal peer);
// or, with BENCH_WORKER_KIND=peer, the peer's plain worker on the same settings.
//
// The bundle is built by the benchmark process and handed over as a file (BENCH_WORKFLOW_BUNDLE): the
// bundler's own memory would otherwise be in this process's peak RSS. Without it, it bundles here.
// It tells its parent (over IPC) once it polls, and drains and exits on SIGTERM or SIGINT.
import { bundleWorkflowCode } from '@temporalio/worker';
import { runWorker, WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import { FAILURE_CONVERTER_PATH } from '@platform-ops/client';
import { runPeerWorker } from '../media/peer-worker';

export const WORKFLOW_BUNDLE_ENV = 'BENCH_WORKFLOW_BUNDLE';

/** `peer`: the Temporal peer's plain worker (../media/peer-worker.ts) instead of the service's. */
export const WORKER_KIND_ENV = 'BENCH_WORKER_KIND';

/** The bench workflows, bundled as the service's worker bundles its own. */
export async function bundleBenchWorkflows(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    ...WORKFLOW_BUNDLER_OPTIONS,
    // Failures' messages into their encoded attributes, as the worker's own bundle has it (src/codec).
    failureConverterPath: FAILURE_CONVERTER_PATH,
  });
  return code;
}

async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // The SDK drains on these; said on stderr, so a stop nobody in the benchmark asked for shows who.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGQUIT', 'SIGUSR2'] as const) {
    process.once(signal, () => console.error(`Bench worker ${process.pid}: ${signal} received, draining`));
  }
  const codePath = env[WORKFLOW_BUNDLE_ENV];
  const opts = {
    workflowBundle: codePath ? { codePath } : { code: await bundleBenchWorkflows() },
    onRunning: () => void process.send?.({ ready: true }),
  };
  await (env[WORKER_KIND_ENV] === 'peer' ? runPeerWorker(env, opts) : runWorker(env, opts));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`Bench worker stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  });
}
