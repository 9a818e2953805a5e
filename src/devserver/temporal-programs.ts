// Where each Temporal program the project runs comes from, the fastest way first (docs/starter.md#temporal-programs):
// its path setting, the project cache, the release archive checked against its published sha256, a Go build.
import * as path from 'path';
import { findProjectRoot, loadTemporalProgramSettings, type TemporalProgramSettings } from '../config/settings';
import { goInstallWithLock } from './go-build';
import { exec, findOnPath, isExecutableFile } from './processes';
import { downloadRelease, releaseUrl, ReleaseDownloadError } from './release-download';
import { TEMPORAL_CLI_VERSION, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './versions';

type PathSetting = keyof Omit<TemporalProgramSettings, 'TEMPORAL_RELEASES_URL'>;

interface ProgramFile {
  setting: PathSetting;
  /** Its name in the release archive. */
  member: string;
  /** Its name as `go install` builds it, and so in the cache. */
  built: string;
}

interface TemporalProgram<K extends string> {
  label: string;
  /** Under github.com/temporalio/. */
  repository: string;
  version: string;
  /** In the project cache, with the version: `server-v1.32.1/bin/`. */
  cacheFolder: string;
  /** The release's archive for an OS and architecture as Go names them (each repository's .goreleaser.yml). */
  archive: (os: string, arch: string) => string;
  checksums: string;
  files: Record<K, ProgramFile>;
  goPackages: string[];
  ldflags: string;
  /** Measured on the two-core development machine (docs/starter.md), for a user deciding whether to wait. */
  goBuildTime: string;
  /** A program of this name on PATH is used before the cache. */
  onPath?: string;
}

export const TEMPORAL_PROGRAMS = {
  server: {
    label: `the Temporal server and SQL tool v${TEMPORAL_SERVER_VERSION}`,
    repository: 'temporal',
    version: TEMPORAL_SERVER_VERSION,
    cacheFolder: 'server',
    archive: (os, arch) => `temporal_${TEMPORAL_SERVER_VERSION}_${os}_${arch}.tar.gz`,
    checksums: 'checksums.txt',
    files: {
      server: { setting: 'TEMPORAL_SERVER_PATH', member: 'temporal-server', built: 'server' },
      sqlTool: { setting: 'TEMPORAL_SQL_TOOL_PATH', member: 'temporal-sql-tool', built: 'sql' },
    },
    goPackages: [
      `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    ],
    // Unstripped, each binary is hundreds of MB.
    ldflags: '-s -w',
    goBuildTime: '8 to 13 minutes',
  } satisfies TemporalProgram<'server' | 'sqlTool'>,
  uiServer: {
    label: `the Temporal UI server v${TEMPORAL_UI_VERSION}`,
    repository: 'ui-server',
    version: TEMPORAL_UI_VERSION,
    cacheFolder: 'ui-server',
    archive: (os, arch) => `ui-server_${TEMPORAL_UI_VERSION}_${os}_${arch}.tar.gz`,
    checksums: `ui-server_${TEMPORAL_UI_VERSION}_checksums.txt`,
    files: { uiServer: { setting: 'TEMPORAL_UI_SERVER_PATH', member: 'ui-server', built: 'server' } },
    goPackages: [`github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`],
    ldflags: '-s -w',
    goBuildTime: 'under a minute after the server, about 4 minutes alone',
  } satisfies TemporalProgram<'uiServer'>,
  cli: {
    label: `the Temporal CLI v${TEMPORAL_CLI_VERSION}`,
    repository: 'cli',
    version: TEMPORAL_CLI_VERSION,
    cacheFolder: 'cli',
    archive: (os, arch) => `temporal_cli_${TEMPORAL_CLI_VERSION}_${os}_${arch}.tar.gz`,
    checksums: 'checksums.txt',
    files: { cli: { setting: 'TEMPORAL_CLI_PATH', member: 'temporal', built: 'temporal' } },
    goPackages: [`github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`],
    // Without -X, `go install` stamps "0.0.0-DEV".
    ldflags: `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
    goBuildTime: 'about 10 minutes',
    onPath: 'temporal',
  } satisfies TemporalProgram<'cli'>,
};

/** Neither a download nor a Go build could provide a program: the message says both ways forward. */
export class TemporalProgramUnavailable extends Error {
  override readonly name = 'TemporalProgramUnavailable';
}

interface FindOptions {
  log?: (msg: string) => void;
  /** The project cache: `.temporal/` in the checkout. */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** Go's names for this machine, where Temporal publishes a .tar.gz for it. */
export function releasePlatform(): { os: string; arch: string } | undefined {
  const os = { linux: 'linux', darwin: 'darwin' }[process.platform as string];
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  return os && arch ? { os, arch } : undefined;
}

const secondsSince = (t: number): string => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The program's files, from the first source that has them; says which and how long it took. */
export async function findTemporalProgram<K extends string>(
  program: TemporalProgram<K>,
  opts: FindOptions = {},
): Promise<Record<K, string>> {
  const began = Date.now();
  const log = opts.log ?? (() => undefined);
  const settings = loadTemporalProgramSettings(opts.env ?? process.env);
  const files = Object.entries(program.files) as Array<[K, ProgramFile]>;
  const using = (source: string, found: Record<K, string>): Record<K, string> => {
    log(`Using ${program.label} (${source}, ${secondsSince(began)}): ${Object.values(found).join(', ')}`);
    return found;
  };

  const fromSettings = await fromPathSettings(files, settings);
  if (fromSettings) return using(`from ${files.map(([, f]) => f.setting).join(' and ')}`, fromSettings);
  const onPath = program.onPath && (await findOnPath(program.onPath));
  if (onPath) return using('from PATH', Object.fromEntries(files.map(([key]) => [key, onPath])) as Record<K, string>);

  const cacheDir = path.resolve(opts.cacheDir ?? path.join(findProjectRoot(), '.temporal'));
  const binDir = path.join(cacheDir, `${program.cacheFolder}-v${program.version}`, 'bin');
  const cached = Object.fromEntries(files.map(([key, f]) => [key, path.join(binDir, f.built)])) as Record<K, string>;
  const inCache = async () => (await Promise.all(Object.values<string>(cached).map(isExecutableFile))).every(Boolean);
  if (await inCache()) return using('from the cache', cached);

  const platform = releasePlatform();
  const archive = platform && program.archive(platform.os, platform.arch);
  let notDownloaded: string;
  if (!settings.TEMPORAL_RELEASES_URL) notDownloaded = 'Downloads are off: TEMPORAL_RELEASES_URL is empty.';
  else if (!archive) notDownloaded = `Temporal publishes no .tar.gz for ${process.platform} ${process.arch}.`;
  else {
    const members = Object.fromEntries(files.map(([key, f]) => [f.member, cached[key]]));
    const release = { repository: program.repository, version: program.version, archive, members };
    try {
      await downloadRelease(
        settings.TEMPORAL_RELEASES_URL,
        { ...release, checksums: program.checksums },
        { label: program.label, cacheDir, log, progress: process.stderr },
      );
      return using(`from a download of ${archive}, sha256 verified`, cached);
    } catch (err) {
      if (!(err instanceof ReleaseDownloadError)) throw err;
      notDownloaded = `No download of ${program.label}: ${err.message}${/[.!]$/.test(err.message) ? '' : '.'}`;
    }
  }

  const go = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go');
  if (!go) throw new TemporalProgramUnavailable(twoWaysForward(program, notDownloaded, binDir, archive));
  log(notDownloaded);
  log(`Building ${program.label} from source with Go instead (${program.goBuildTime} on two cores, once).`);
  await goInstallWithLock({
    label: program.label,
    packages: program.goPackages,
    ldflags: program.ldflags,
    binDir,
    binaries: Object.values(cached),
    cacheDir,
    nice: true,
    log,
    noGo: () => new TemporalProgramUnavailable(twoWaysForward(program, notDownloaded, binDir, archive)),
  });
  return using('built with Go', cached);
}

/** Every file's path setting, or none: half a program named by settings is a mistake to report. */
async function fromPathSettings<K extends string>(
  files: Array<[K, ProgramFile]>,
  settings: TemporalProgramSettings,
): Promise<Record<K, string> | undefined> {
  const set = files.filter(([, f]) => settings[f.setting]);
  if (set.length === 0) return undefined;
  const unset = files.filter(([, f]) => !settings[f.setting]).map(([, f]) => f.setting);
  if (unset.length > 0) {
    throw new Error(
      `${set.map(([, f]) => f.setting).join(', ')} is set but ${unset.join(', ')} is not: set both, or neither.`,
    );
  }
  for (const [, f] of set) {
    if (!(await isExecutableFile(settings[f.setting]!))) {
      throw new Error(`${f.setting} is set to ${settings[f.setting]}, but that is not an executable file.`);
    }
  }
  return Object.fromEntries(files.map(([key, f]) => [key, settings[f.setting]!])) as Record<K, string>;
}

function twoWaysForward<K extends string>(
  program: TemporalProgram<K>,
  notDownloaded: string,
  binDir: string,
  archive: string | undefined,
): string {
  const mirrored = releaseUrl('<mirror>', program.repository, program.version, archive ?? '<archive>');
  return [
    `${capitalized(program.label)} is not in ${binDir}, and Go is not on PATH to build it.`,
    notDownloaded,
    'Either way forward works:',
    `  - a mirror of Temporal's GitHub releases: set TEMPORAL_RELEASES_URL=<mirror>, where ${mirrored}`,
    `    and ${program.checksums} beside it are served (a company's artifact proxy of github.com works as it is);`,
    `  - Go 1.26 on PATH: it is built from source once (${program.goBuildTime} on two cores).`,
    `Or name the programs with ${Object.values<ProgramFile>(program.files)
      .map((f) => f.setting)
      .join(' and ')}. See docs/starter.md#temporal-programs.`,
  ].join('\n');
}

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
}

/** The server, its SQL tool and the UI server, one after the other: a Go build alone keeps both cores busy. */
export async function findOrBuildClusterBinaries(
  log: (msg: string) => void,
  cacheDir?: string,
): Promise<ClusterBinaries> {
  const began = Date.now();
  const server = await findTemporalProgram(TEMPORAL_PROGRAMS.server, { log, cacheDir });
  const ui = await findTemporalProgram(TEMPORAL_PROGRAMS.uiServer, { log, cacheDir });
  log(
    `Using the Temporal server v${TEMPORAL_SERVER_VERSION} and UI server v${TEMPORAL_UI_VERSION} ` +
      `(${secondsSince(began)})`,
  );
  return { ...server, ...ui };
}

const VERSION_TIMEOUT_MS = 20_000;

/** The operator's CLI, checked to answer `--version`; another release than ours is used, and the log says so. */
export async function findOrBuildTemporalCli(opts: Omit<FindOptions, 'env'> = {}): Promise<string> {
  const { cli } = await findTemporalProgram(TEMPORAL_PROGRAMS.cli, opts);
  const version = (
    await exec(cli, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS }).catch((err: Error) => {
      throw new Error(`The Temporal CLI at ${cli}: ${err.message}`);
    })
  ).trim();
  const note = version.includes(`version ${TEMPORAL_CLI_VERSION} `)
    ? ''
    : ` (this project expects ${TEMPORAL_CLI_VERSION})`;
  opts.log?.(`The Temporal CLI answers: ${version}${note}`);
  return cli;
}
