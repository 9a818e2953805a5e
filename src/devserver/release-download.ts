// A Temporal release archive fetched from its GitHub release (or a mirror of the same paths), used only once its
// sha256 matches the release's checksum file, and placed in the cache whole or not at all (docs/starter.md).
import { createHash } from 'crypto';
import { createWriteStream, promises as fs } from 'fs';
import * as path from 'path';
import { Readable, Transform, Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { extract } from 'tar';
import { isAlive } from './processes';

/** No answer (response headers) within this long ends a download: a machine with no route out moves on quickly. */
const ANSWER_TIMEOUT_MS = 10_000;
/** No data for this long ends a download that had begun. */
export const STALL_TIMEOUT_MS = 15_000;
// The server's archive holds five programs (about 250 MB unpacked); a checksum file is a few lines.
const MAX_ARCHIVE_BYTES = 512 << 20;
const MAX_CHECKSUMS_BYTES = 1 << 20;
const PARTIAL_PREFIX = '.download-';
// What a machine with no route out, or a mirror that is down, answers.
const NETWORK_ERRORS: Record<string, string> = {
  ENOTFOUND: 'its host name does not resolve (ENOTFOUND): no route out, or a mistyped mirror',
  EAI_AGAIN: 'its host name could not be resolved now (EAI_AGAIN)',
  ECONNREFUSED: 'the connection was refused (ECONNREFUSED)',
  ECONNRESET: 'the connection was reset (ECONNRESET)',
  ENETUNREACH: 'the network is unreachable (ENETUNREACH)',
  EHOSTUNREACH: 'the host is unreachable (EHOSTUNREACH)',
  UND_ERR_SOCKET: 'the connection closed before the whole answer arrived',
};

export interface ReleaseArchive {
  /** Under github.com/temporalio/. */
  repository: string;
  version: string;
  archive: string;
  /** The release's checksum file, `<sha256>  <asset>` a line. */
  checksums: string;
  /** Each program wanted from the archive (by file name, wherever it lies in it) and where it goes. */
  members: Record<string, string>;
}

/** Why a release could not be used: it did not arrive, or it arrived and did not check out. */
export class ReleaseDownloadError extends Error {
  override readonly name = 'ReleaseDownloadError';
}

/** Where GitHub serves a release asset; a mirror given as `base` serves the same paths. */
export const releaseUrl = (base: string, repository: string, version: string, asset: string): string =>
  `${base.replace(/\/+$/, '')}/temporalio/${repository}/releases/download/v${version}/${asset}`;

/** A URL as it may be shown: without the user and password a company proxy may carry. */
function shownUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

interface DownloadOptions {
  label: string;
  /** Holds the partial download; the members' folders must be on the same file system (renamed into place). */
  cacheDir: string;
  log: (msg: string) => void;
  /** A terminal gets a progress bar; anything else only the start and end lines. */
  progress?: { write(text: string): unknown; isTTY?: boolean; columns?: number };
}

/** Downloads, verifies and unpacks `release`; its members are in place when this resolves, none of them otherwise. */
export async function downloadRelease(base: string, release: ReleaseArchive, opts: DownloadOptions): Promise<void> {
  const began = Date.now();
  const url = releaseUrl(base, release.repository, release.version, release.archive);
  const checksumsUrl = releaseUrl(base, release.repository, release.version, release.checksums);
  await removeAbandonedDownloads(opts.cacheDir);
  opts.log(`Downloading ${opts.label}: ${release.archive} from ${shownUrl(path.posix.dirname(url))}/`);
  const expected = findChecksum(
    (await fetchBounded(checksumsUrl, MAX_CHECKSUMS_BYTES)).toString('utf8'),
    release,
    checksumsUrl,
  );
  const work = path.join(opts.cacheDir, `${PARTIAL_PREFIX}${process.pid}-${release.archive}`);
  await fs.rm(work, { recursive: true, force: true });
  await fs.mkdir(work, { recursive: true });
  try {
    const file = path.join(work, release.archive);
    const bar = progressBar(opts.progress, release.archive);
    const { bytes, sha256 } = await fetchToFile(url, file, bar.update).finally(bar.done);
    if (sha256 !== expected) {
      throw new ReleaseDownloadError(
        `${release.archive} from ${shownUrl(url)} does not match its checksum: ${release.checksums} gives sha256 ` +
          `${expected}, the ${bytes} bytes received have ${sha256}. It was deleted; nothing of it is kept.`,
      );
    }
    await unpack(file, work, release);
    opts.log(
      `Downloaded ${opts.label} (${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - began) / 1000).toFixed(1)} s, ` +
        `sha256 ${sha256.slice(0, 12)}… as ${release.checksums} gives it)`,
    );
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

function findChecksum(text: string, release: ReleaseArchive, checksumsUrl: string): string {
  for (const line of text.split('\n')) {
    const [digest, name] = line.trim().split(/\s+\*?/);
    if (digest && name === release.archive && /^[0-9a-f]{64}$/i.test(digest)) return digest.toLowerCase();
  }
  throw new ReleaseDownloadError(
    `${shownUrl(checksumsUrl)} has no sha256 line for ${release.archive}, so the archive is not downloaded.`,
  );
}

/** Unpacks the wanted members into `work`, then renames each into place: a rename within a file system is atomic. */
async function unpack(file: string, work: string, release: ReleaseArchive): Promise<void> {
  const wanted = new Set(Object.keys(release.members));
  const unpacked = path.join(work, 'unpacked');
  await fs.mkdir(unpacked);
  await extract({ file, cwd: unpacked, strict: true, filter: (p) => wanted.has(path.basename(p)) }).catch(
    (err: Error) => {
      throw new ReleaseDownloadError(`${release.archive} could not be unpacked: ${err.message}`);
    },
  );
  const found = (await fs.readdir(unpacked, { recursive: true })).map((p) => path.join(unpacked, p));
  const sources = Object.entries(release.members).map(([member, target]) => {
    const source = found.find((p) => path.basename(p) === member);
    if (!source) throw new ReleaseDownloadError(`${release.archive} holds no ${member}`);
    return { source, target };
  });
  for (const { source, target } of sources) {
    await fs.chmod(source, 0o755);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(source, target);
  }
}

/** What a download killed outright left behind: the folder names its process. */
async function removeAbandonedDownloads(cacheDir: string): Promise<void> {
  const entries = await fs.readdir(cacheDir).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => e.startsWith(PARTIAL_PREFIX))) {
    const pid = Number(entry.slice(PARTIAL_PREFIX.length).split('-')[0]);
    if (!isAlive(pid)) await fs.rm(path.join(cacheDir, entry), { recursive: true, force: true });
  }
}

interface Sink {
  limit: number;
  /** Written here; else only handed to onChunk. */
  file?: string;
  onBytes?: (received: number, total?: number) => void;
}

async function fetchBounded(url: string, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await fetchWithin(url, { limit }, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

async function fetchToFile(
  url: string,
  file: string,
  onBytes: (received: number, total?: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const { bytes } = await fetchWithin(url, { limit: MAX_ARCHIVE_BYTES, file, onBytes }, (chunk) => hash.update(chunk));
  return { bytes, sha256: hash.digest('hex') };
}

/** One GET, bounded in the time to its answer, the silence between its chunks, and its size. */
async function fetchWithin(
  url: string,
  sink: Sink,
  onChunk: (chunk: Buffer) => void,
): Promise<{ bytes: number; total?: number }> {
  const shown = shownUrl(url);
  const abort = new AbortController();
  const abortAfter = (ms: number, why: string) => setTimeout(() => abort.abort(new Error(why)), ms);
  let timer = abortAfter(ANSWER_TIMEOUT_MS, `${shown} gave no answer within ${ANSWER_TIMEOUT_MS / 1000} s`);
  const failure = (err: Error): ReleaseDownloadError => {
    if (err instanceof ReleaseDownloadError) return err;
    if (abort.signal.aborted) return new ReleaseDownloadError((abort.signal.reason as Error).message);
    // undici's "fetch failed" keeps the reason (ENOTFOUND, ECONNREFUSED…) in its cause.
    const cause = err.cause as { code?: string; message?: string } | undefined;
    const reason = cause?.code ? (NETWORK_ERRORS[cause.code] ?? cause.code) : (cause?.message ?? err.message);
    return new ReleaseDownloadError(`${shown}: ${reason}`);
  };
  try {
    const res = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    if (!res.ok || !res.body) throw new ReleaseDownloadError(`${shown} answered HTTP ${res.status}`);
    const declared = Number(res.headers.get('content-length') ?? NaN);
    const total = Number.isFinite(declared) ? declared : undefined;
    const { limit } = sink;
    if (total !== undefined && total > limit) {
      throw new ReleaseDownloadError(`${shown} is ${total} bytes, more than the ${limit} this download takes`);
    }
    let bytes = 0;
    const watch = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        clearTimeout(timer);
        timer = abortAfter(STALL_TIMEOUT_MS, `${shown} sent nothing for ${STALL_TIMEOUT_MS / 1000} s`);
        if (bytes > limit) return done(new ReleaseDownloadError(`${shown} sent more than ${limit} bytes`));
        onChunk(chunk);
        sink.onBytes?.(bytes, total);
        done(null, chunk);
      },
    });
    const body = Readable.fromWeb(res.body as never);
    const drain = new Writable({ write: (_chunk, _enc, done) => done() });
    await pipeline(body, watch, sink.file ? createWriteStream(sink.file) : drain);
    if (total !== undefined && bytes !== total) {
      throw new ReleaseDownloadError(`${shown} ended after ${bytes} of its ${total} bytes`);
    }
    return { bytes, total };
  } catch (err) {
    throw failure(err as Error);
  } finally {
    clearTimeout(timer);
  }
}

const MB = (bytes: number): string => (bytes / 1e6).toFixed(1);

// The Temporal Runtime's logger holds each line 100 ms to order it: the bar waits for the lines said before it.
const FIRST_DRAW_MS = 300;
const BAR_WIDTH = 20;

/** One line redrawn in place: how far, of how much, how fast; the bar itself only where the terminal is wide enough. */
function progressBar(stream: DownloadOptions['progress'], name: string) {
  if (!stream?.isTTY) return { update: () => undefined, done: () => undefined };
  const began = Date.now();
  let drawn = 0;
  return {
    update: (received: number, total?: number): void => {
      const now = Date.now();
      if (now - began < FIRST_DRAW_MS || (now - drawn < 100 && received !== total)) return;
      drawn = now;
      const speed = received / ((now - began) / 1000);
      const size = total ? `${MB(received)} of ${MB(total)} MB` : `${MB(received)} MB`;
      const filled = total ? Math.round((received / total) * BAR_WIDTH) : 0;
      const bar = total ? ` [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]` : '';
      // A pseudo-terminal with no size set says 0 columns.
      const width = (stream.columns || 80) - 1;
      const line = [`  ${name}${bar} ${size}, ${MB(speed)} MB/s`, `  ${name} ${size}, ${MB(speed)} MB/s`].find(
        (l) => l.length <= width,
      );
      stream.write(`\r${line ?? `${name} ${size}`.slice(0, width)}\x1b[K`);
    },
    done: (): void => {
      if (drawn > 0) stream.write('\r\x1b[K');
    },
  };
}
