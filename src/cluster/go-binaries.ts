// Finds or builds the cluster's Go programs, cached under `.temporal/` like the CLI. The server and
// the UI server are both called `server`, so each release has a folder of its own.
import * as path from 'path';
import { findProjectRoot } from '../devserver/find-temporal-cli';
import { goInstallWithLock } from '../devserver/go-install';
import { GO_PACKAGES, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './versions';

export async function findOrBuildClusterBinaries(
  log: (msg: string) => void,
  cacheDir = path.join(findProjectRoot(), '.temporal'),
): Promise<{ server: string; sqlTool: string; uiServer: string }> {
  const serverDir = path.join(cacheDir, `server-v${TEMPORAL_SERVER_VERSION}`, 'bin');
  const uiDir = path.join(cacheDir, `ui-server-v${TEMPORAL_UI_VERSION}`, 'bin');
  const binaries = {
    server: path.join(serverDir, 'server'),
    sqlTool: path.join(serverDir, 'sql'),
    uiServer: path.join(uiDir, 'server'),
  };
  const build = (label: string, packages: string[], binDir: string, built: string[]) =>
    goInstallWithLock({
      label,
      packages,
      // Stripped like the CLI's build: unstripped, each binary is hundreds of MB.
      ldflags: '-s -w',
      binDir,
      binaries: built,
      cacheDir,
      nice: true,
      log,
      noGo: () =>
        new Error(`${label} is not built at ${built.join(', ')} and Go is not on PATH: install Go 1.26 to build it.`),
    });
  // One after the other: each build alone already keeps both cores busy.
  await build(
    `the Temporal server and SQL tool v${TEMPORAL_SERVER_VERSION}`,
    [GO_PACKAGES.server, GO_PACKAGES.sqlTool],
    serverDir,
    [binaries.server, binaries.sqlTool],
  );
  await build(`the Temporal UI server v${TEMPORAL_UI_VERSION}`, [GO_PACKAGES.uiServer], uiDir, [binaries.uiServer]);
  return binaries;
}
