// A program's process: the Temporal Runtime (its logger and metrics) installed once, and the entry that ends the
// process with its logs written.
import type { MetricCounter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { WorkerSettings } from './config/settings';
import { createLogger, logFormatOf, settleLogs, type LogCut } from './logging';

let runtimeInstalled = false;

/** Its native threads and timers keep the process alive until it exits. */
export const isRuntimeInstalled = (): boolean => runtimeInstalled;

/** Once a process: `up` installs it first, so that its own lines go through the same logger as the worker's. */
export function installRuntime(settings: WorkerSettings): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Created on the first cut line, once the Runtime (and its exporter) exists.
  let cuts: MetricCounter | undefined;
  const onCut = (reason: LogCut): void => {
    cuts ??= Runtime.instance().metricMeter.createCounter('log_lines_cut', 'lines', 'Log lines shortened to 8 KB');
    cuts.add(1, { reason });
  };
  Runtime.install({
    logger: createLogger(settings.LOG_LEVEL, logFormatOf(settings.LOG_FORMAT), { onCut }),
    // The SDK's defaults, and SIGHUP: closing a terminal stops a worker (and `npm start`'s stack) as Ctrl-C does.
    shutdownSignals: ['SIGINT', 'SIGTERM', 'SIGQUIT', 'SIGUSR2', 'SIGHUP'],
    telemetryOptions: {
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(settings.METRICS_PORT
        ? { metrics: { prometheus: { bindAddress: `0.0.0.0:${settings.METRICS_PORT}` } } }
        : {}),
    },
  });
}

/** Ends the process, with `what` and the error's message on stderr and status 1 if it fails. */
export function runMain(what: string, main: () => Promise<unknown>): void {
  main().then(
    () => settleLogs().then(() => process.exit(0)),
    (err: unknown) => {
      console.error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      void settleLogs().then(() => process.exit(1));
    },
  );
}
