// A local mirror of Temporal's GitHub releases, laid out as the releases are (one .tar.gz of each program for this
// machine, its checksum file beside it, at `/temporalio/<repository>/releases/download/v<version>/`), made from
// programs already on this machine, and served over HTTP on 127.0.0.1 as TEMPORAL_RELEASES_URL.
import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync, promises as fs, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { create } from 'tar';
import {
  findOrBuildClusterBinaries,
  findOrBuildTemporalCli,
  releasePlatform,
  TEMPORAL_PROGRAMS,
} from '../../src/devserver/temporal-programs';

type ProgramName = keyof typeof TEMPORAL_PROGRAMS;

export interface MirroredRelease {
  program: ProgramName;
  /** The archive's path in the mirror's folder. */
  archive: string;
  checksums: string;
}

/** The folder of a release in the mirror, as GitHub names it. */
export function releaseFolder(root: string, program: ProgramName): string {
  const { repository, version } = TEMPORAL_PROGRAMS[program];
  return path.join(root, 'temporalio', repository, 'releases', 'download', `v${version}`);
}

/**
 * Writes `program`'s release for this machine into the mirror at `root`: its files (member name → a program on this
 * machine) at the archive's top with a licence beside them, as goreleaser packs them, and its line in the checksums.
 */
export async function mirrorRelease(
  root: string,
  program: ProgramName,
  files: Record<string, string>,
): Promise<MirroredRelease> {
  const spec = TEMPORAL_PROGRAMS[program];
  const folder = releaseFolder(root, program);
  const staging = path.join(root, '.staging', program);
  await fs.mkdir(folder, { recursive: true });
  await fs.mkdir(staging, { recursive: true });
  await fs.writeFile(path.join(staging, 'LICENSE'), 'MIT License\n');
  for (const [member, source] of Object.entries(files)) {
    await fs.copyFile(source, path.join(staging, member));
    await fs.chmod(path.join(staging, member), 0o755);
  }
  const platform = releasePlatform();
  if (!platform) throw new Error(`Temporal publishes no .tar.gz for ${process.platform} ${process.arch} to mirror`);
  const name = spec.archive(platform.os, platform.arch);
  const archive = path.join(folder, name);
  // Level 1: the archives are made in a test's time; a release's own compression does not matter to the reader.
  await create({ gzip: { level: 1 }, file: archive, cwd: staging, portable: true }, ['LICENSE', ...Object.keys(files)]);
  const checksums = path.join(folder, spec.checksums);
  appendFileSync(checksums, `${await sha256(archive)}  ${name}\n`);
  await fs.rm(staging, { recursive: true, force: true });
  return { program, archive, checksums };
}

/** The three programs' releases, made from the ones this checkout's cache (or a Go build) has. */
export async function mirrorAllReleases(root: string, log: (msg: string) => void): Promise<MirroredRelease[]> {
  const binaries = await findOrBuildClusterBinaries(log);
  const cli = await findOrBuildTemporalCli({ log });
  return [
    await mirrorRelease(root, 'server', { 'temporal-server': binaries.server, 'temporal-sql-tool': binaries.sqlTool }),
    await mirrorRelease(root, 'uiServer', { 'ui-server': binaries.uiServer }),
    await mirrorRelease(root, 'cli', { temporal: cli }),
  ];
}

export async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Serves the mirror's files at their paths (an archive by `sendArchive` when given), and lists what it was asked. */
export async function serveMirror(
  root: string,
  sendArchive?: (res: ServerResponse) => void,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://mirror').pathname);
    requests.push(urlPath);
    const file = path.join(root, path.normalize(urlPath));
    const size = file.startsWith(root) ? statSync(file, { throwIfNoEntry: false })?.size : undefined;
    if (size === undefined) return void res.writeHead(404).end('Not Found');
    if (sendArchive && file.endsWith('.tar.gz')) return sendArchive(res);
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Node's folder and the system's, checked to hold no `go`: a machine where only a download can give the programs. */
export function pathWithoutGo(): string {
  const dirs = [...new Set([path.dirname(process.execPath), '/usr/bin', '/bin'])];
  const withGo = dirs.find((dir) => existsSync(path.join(dir, 'go')));
  if (withGo) throw new Error(`${withGo} holds go: a PATH without it is needed here`);
  return dirs.join(path.delimiter);
}
