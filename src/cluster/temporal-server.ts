// The Temporal server process: started with serverEnv(), ready once its frontend answers.
import { Connection } from '@temporalio/client';
import * as path from 'path';
import { startManagedProcess, type ManagedProcess } from './managed-process';
import { serverEnv, type ServerEnvOptions } from './server-config';

const READY_TIMEOUT_MS = 120_000;

interface TemporalServerOptions extends ServerEnvOptions {
  binary: string;
  logDir: string;
  log: (msg: string) => void;
}

export interface TemporalServerHandle {
  address: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServerHandle> {
  const address = `127.0.0.1:${opts.ports.frontend}`;
  const child = startManagedProcess({
    name: 'temporal-server',
    file: opts.binary,
    // No config flags: the server then renders its embedded template from the environment.
    args: ['--allow-no-auth', 'start'],
    env: serverEnv(opts),
    logFile: path.join(opts.logDir, 'temporal-server.log'),
    onUnexpectedExit: opts.log,
  });
  const handle: TemporalServerHandle = {
    address,
    process: child,
    // SIGTERM: the server leaves its membership ring and closes its shards before exiting.
    stop: async () => {
      await child.stop({ signal: 'SIGTERM', graceMs: 30_000 });
    },
  };
  try {
    await waitForFrontend(address, child);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}

async function waitForFrontend(address: string, child: ManagedProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!child.isRunning())
      throw new Error(`The Temporal server exited while starting; see ${child.logFile}:\n${child.tail()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(
    `The Temporal server did not answer on ${address} within ${READY_TIMEOUT_MS / 1000} s: ${String(last)}`,
  );
}
