import { existsSync } from 'fs';
import * as path from 'path';
import { goInstallWithLock } from './go-install';
import { exec, findOnPath, isExecutableFile } from './processes';

/** The Temporal CLI release we build from source (and expect elsewhere). */
export const TEMPORAL_CLI_VERSION = '1.5.1';

const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
// `go install` leaves the version at "0.0.0-DEV" unless it is injected the way the release build does it;
// -s -w strips debug info like the release build does (unstripped, the binary is ~250 MB).
const GO_LDFLAGS = `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`;
const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const VERSION_TIMEOUT_MS = 20_000;

/** Neither TEMPORAL_CLI_PATH, `temporal` on PATH, a cached build nor Go: the caller may fall back to the SDK's download. */
export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
}

export interface FindTemporalCliOptions {
  log?: (msg: string) => void;
  /** Cache folder; the build goes to `<cacheDir>/bin`. Defaults to `<projectRoot>/.temporal`. */
  cacheDir?: string;
}

/**
 * Returns the absolute path of a working `temporal` binary: TEMPORAL_CLI_PATH, then `temporal` on PATH,
 * then a cached build in the project, then a fresh `go install` into that cache.
 */
export async function findOrBuildTemporalCli(opts: FindTemporalCliOptions = {}): Promise<string> {
  const log = opts.log ?? (() => undefined);
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(findProjectRoot(), '.temporal'));
  const binDir = path.join(cacheDir, 'bin');
  const cached = path.join(binDir, EXE);

  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    const resolved = path.resolve(fromEnv);
    if (!(await isExecutableFile(resolved))) {
      throw new Error(`TEMPORAL_CLI_PATH is set to ${resolved}, but that is not an executable file.`);
    }
    return verify(resolved, 'TEMPORAL_CLI_PATH', log);
  }

  const onPath = await findOnPath(EXE);
  if (onPath) return verify(onPath, 'PATH', log);

  if (await isExecutableFile(cached)) return verify(cached, 'cached build', log);

  await goInstallWithLock({
    label: `the Temporal CLI v${TEMPORAL_CLI_VERSION}`,
    packages: [`${GO_PACKAGE}@v${TEMPORAL_CLI_VERSION}`],
    ldflags: GO_LDFLAGS,
    binDir,
    binaries: [cached],
    cacheDir,
    log,
    noGo: () =>
      new TemporalCliNotFoundError(
        `The Temporal CLI was not found. Either set TEMPORAL_CLI_PATH to a temporal binary, ` +
          `put \`temporal\` on PATH (see https://docs.temporal.io/cli#install), ` +
          `place a build at ${cached}, or install Go 1.25+ so that v${TEMPORAL_CLI_VERSION} can be built there from source.`,
      ),
  });
  return verify(cached, 'fresh build', log);
}

/** The folder holding package.json; walking up works from both `src/devserver` and compiled `lib/src/devserver`. */
export function findProjectRoot(start: string = __dirname): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json found above ${start}`);
  }
}

async function verify(bin: string, source: string, log: (msg: string) => void): Promise<string> {
  const version = (
    await exec(bin, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS }).catch((err: Error) => {
      throw new Error(`Temporal CLI at ${bin} (from ${source}): ${err.message}`);
    })
  ).trim();
  // Another release on PATH may work too; just make the difference visible. `go install` without our -ldflags
  // (e.g. done by hand) reports 0.0.0-DEV.
  const note = version.includes(`version ${TEMPORAL_CLI_VERSION} `)
    ? ''
    : version.includes('0.0.0-DEV')
      ? ' (a source build without a version stamp)'
      : ` (this project expects ${TEMPORAL_CLI_VERSION})`;
  log(`Using Temporal CLI ${bin} (from ${source}): ${version}${note}`);
  return bin;
}
