// The Temporal Web UI server, pointed at the cluster's frontend. It reads `<root>/config/<env>.yaml`,
// which is written anew on each start from the cluster's settings.
import { promises as fs } from 'fs';
import * as path from 'path';
import { startManagedProcess, type ManagedProcess } from './managed-process';

interface UiServerOptions {
  binary: string;
  /** Its root folder (config/ goes in it) and log. */
  dir: string;
  temporalAddress: string;
  port: number;
  namespace: string;
  log: (msg: string) => void;
}

export interface UiServerHandle {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

export async function startUiServer(opts: UiServerOptions): Promise<UiServerHandle> {
  const configDir = path.join(opts.dir, 'config');
  await fs.mkdir(configDir, { recursive: true });
  // JSON is YAML: no YAML writer needed for a flat config.
  const config = {
    temporalGrpcAddress: opts.temporalAddress,
    // Loopback only, like the server it shows: the UI can cancel and terminate workflows.
    host: '127.0.0.1',
    port: opts.port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    notifyOnNewVersion: false,
    cors: { allowOrigins: [`http://127.0.0.1:${opts.port}`, `http://localhost:${opts.port}`] },
  };
  await fs.writeFile(path.join(configDir, 'development.yaml'), `${JSON.stringify(config, null, 2)}\n`);
  const child = startManagedProcess({
    name: 'temporal-ui',
    file: opts.binary,
    args: ['--root', opts.dir, '--env', 'development', 'start'],
    logFile: path.join(opts.dir, 'temporal-ui.log'),
    onUnexpectedExit: opts.log,
  });
  const url = `http://127.0.0.1:${opts.port}`;
  const handle: UiServerHandle = { url, process: child, stop: async () => void (await child.stop()) };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (!child.isRunning())
      throw new Error(`The Temporal UI server exited while starting; see ${child.logFile}:\n${child.tail()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return handle;
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`The Temporal UI server did not answer on ${url} within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
