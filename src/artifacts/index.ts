// Where outputs are kept: the store's interface (an object store could replace the local folder), its keys.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

export interface StoredArtifact {
  uri: string;
  bytes: number;
  sha256: string;
  contentType?: string;
}

export type ArtifactStore = Pick<LocalArtifactStore, 'location' | 'put'>;

export class InvalidArtifactKeyError extends Error {
  override readonly name = 'InvalidArtifactKeyError';
  constructor(
    readonly key: string,
    readonly rule: string,
  ) {
    super(`Invalid artifact key ${JSON.stringify(key)}: ${rule}`);
  }
}

/** Refuses anything that could climb out of the root or differ between systems. */
export function artifactKeySegments(key: string): string[] {
  const refuse = (rule: string): never => {
    throw new InvalidArtifactKeyError(key, rule);
  };
  if (key === '') refuse('must not be empty');
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) refuse('must be relative (no leading "/" or drive letter)');
  if (key.includes('\\')) refuse('must not contain backslashes (use "/" between segments)');
  if (key.includes('\0')) refuse('must not contain NUL characters');
  const segments = key.split('/');
  if (segments.some((s) => s === '')) refuse('must not contain empty segments ("//" or a trailing "/")');
  if (segments.some((s) => s === '..')) refuse('must not contain ".." segments');
  if (segments.some((s) => s === '.')) refuse('must not contain "." segments');
  return segments;
}

// Ids (workflow, task, batch, report) become path segments of artifact keys. The mapping must be
// one-to-one: if "a/b" and "a_b" both became "a_b", one run's outputs would overwrite another's.
const SAFE = /^[A-Za-z0-9._-]+$/;
// File names stop at 255 bytes; keys stay well below.
const MAX_SEGMENT = 120;

/**
 * Itself when short and safe (and not "." or ".."), else a readable prefix, "~" and a hash of the whole id. "~"
 * never survives in the readable part, so a hashed segment can never equal another id kept as is.
 */
export function safeSegment(id: string): string {
  if (SAFE.test(id) && !/^\.*$/.test(id) && id.length <= MAX_SEGMENT) return id;
  const readable = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${readable}~${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

export class LocalArtifactStore implements ArtifactStore {
  readonly rootDir: string;
  /** For logs (e.g. file:///abs/dir). */
  readonly location: string;

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
    this.location = pathToFileURL(this.rootDir).href;
  }

  /** The absolute file path of `key` (checked like a put's key). */
  pathOf(key: string): string {
    return path.join(this.rootDir, ...artifactKeySegments(key));
  }

  /** Atomic, and overwrites (so a retried copy is idempotent). */
  async put(
    key: string,
    body: AsyncIterable<Uint8Array>,
    meta: { contentType?: string; signal?: AbortSignal } = {},
  ): Promise<StoredArtifact> {
    const target = this.pathOf(key);
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true });
    // Same directory as the target: rename is atomic only within one file system.
    const temp = path.join(dir, `.${path.basename(target)}.${randomUUID()}.partial`);
    const hash = createHash('sha256');
    let bytes = 0;
    const tap = async function* (source: AsyncIterable<Uint8Array>) {
      for await (const chunk of source) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        yield chunk;
      }
    };
    try {
      await pipeline(body, tap, createWriteStream(temp, { flags: 'wx' }), { signal: meta.signal });
      // Flush to disk before the rename, so a crash cannot leave an empty file under the key.
      const handle = await open(temp, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return {
      uri: pathToFileURL(target).href,
      bytes,
      sha256: hash.digest('hex'),
      ...(meta.contentType !== undefined ? { contentType: meta.contentType } : {}),
    };
  }
}
