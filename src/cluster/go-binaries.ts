// Finds or builds the cluster's Go programs, cached under `.temporal/` like the CLI. The server and
// the UI server are both called `server`, so each release has a folder of its own.
import * as path from 'path';
import { findOnPath, goInstallWithLock } from '../devserver/go-install';
import { findProjectRoot } from '../devserver/find-temporal-cli';
import { GO_PACKAGES, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './versions';

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
}

// Stripped like the CLI's build: unstripped, each binary is hundreds of MB.
const LDFLAGS = '-s -w';

export async function findOrBuildClusterBinaries(
  log: (msg: string) => void,
  cacheDir = path.join(findProjectRoot(), '.temporal'),
): Promise<ClusterBinaries> {
  const serverDir = path.join(cacheDir, `server-v${TEMPORAL_SERVER_VERSION}`, 'bin');
  const uiDir = path.join(cacheDir, `ui-server-v${TEMPORAL_UI_VERSION}`, 'bin');
  const binaries: ClusterBinaries = {
    server: path.join(serverDir, 'server'),
    sqlTool: path.join(serverDir, 'sql'),
    uiServer: path.join(uiDir, 'server'),
  };
  const go = await findOnPath('go');
  const build = async (label: string, packages: string[], binDir: string, built: string[]) => {
    if (!go) {
      // Checked only when something is missing, so a machine with the cache needs no Go.
      throw new Error(
        `${label} is not built at ${built.join(', ')} and Go is not on PATH: install Go 1.26 to build it.`,
      );
    }
    await goInstallWithLock(go, {
      label,
      packages,
      ldflags: LDFLAGS,
      binDir,
      binaries: built,
      cacheDir,
      nice: true,
      log,
    });
  };
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
