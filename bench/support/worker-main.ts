// The benchmark's worker, in a process of its own so that its memory and CPU are its own: the service's
// worker (src/worker.ts's runWorker, its settings from the environment),
// with the bench workflows (every workflow of the service, plus the SDK's floor).
//
// The bundle is built by the benchmark process and handed over as a file (BENCH_WORKFLOW_BUNDLE): the
// bundler's own memory would otherwise be in this process's peak RSS. Without it, it bundles here.
// It tells its parent (over IPC) once it polls, and drains and exits on SIGTERM or SIGINT.
import { bundleWorkflowCode } from '@temporalio/worker';
import { runWorker, WORKFLOW_BUNDLER_OPTIONS } from '../../src/worker';
import { FAILURE_CONVERTER_PATH } from '@platform-ops/client';

export const WORKFLOW_BUNDLE_ENV = 'BENCH_WORKFLOW_BUNDLE';

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
  await runWorker(env, {
    workflowBundle: codePath ? { codePath } : { code: await bundleBenchWorkflows() },
    onRunning: () => process.send?.({ ready: true }),
  });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`Bench worker stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  });
}
