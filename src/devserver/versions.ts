// The pinned versions of the production topology (test/deploy/compose.test.ts keeps docker-compose.yml on them),
// and the cluster's Go programs built from them under `.temporal/`, each release in a folder of its own.
import * as path from 'path';
import { findProjectRoot } from '../config/settings';
import { goInstallWithLock } from './find-temporal-cli';

/** The server and its SQL tool: the newest release that builds with these machines' Go 1.26.8 (later need 1.26.10). */
export const TEMPORAL_SERVER_VERSION = '1.32.1';

export const TEMPORAL_UI_VERSION = '2.55.0';

/** Debian's PostgreSQL (bookworm ships 15); the server's `postgres12` plugin supports 12 and later. */
export const POSTGRES_MAJOR = 15;

const GO_PACKAGES = {
  server: `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
  sqlTool: `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
  uiServer: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`,
} as const;

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
}

/** Built in `cacheDir` first when missing (minutes). */
export async function findOrBuildClusterBinaries(
  log: (msg: string) => void,
  cacheDir = path.join(findProjectRoot(), '.temporal'),
): Promise<ClusterBinaries> {
  const began = Date.now();
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
      // Unstripped, each binary is hundreds of MB.
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
  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  log(
    `Using the Temporal server v${TEMPORAL_SERVER_VERSION} and UI server v${TEMPORAL_UI_VERSION} in ${cacheDir} (${seconds} s)`,
  );
  return binaries;
}
