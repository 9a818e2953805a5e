// The artifact store on a local folder (ARTIFACT_DIR). Each put streams into a temp file next to its
// target and renames it into place, so readers see either the old file or the whole new one.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { artifactKeySegments, type ArtifactStore, type StoredArtifact } from './store';

export class LocalArtifactStore implements ArtifactStore {
  readonly rootDir: string;
  readonly location: string;

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
    this.location = pathToFileURL(this.rootDir).href;
  }

  /** The absolute file path of `key` (checked like a put's key). */
  pathOf(key: string): string {
    return path.join(this.rootDir, ...artifactKeySegments(key));
  }

  async put(
    key: string,
    body: AsyncIterable<Uint8Array>,
    meta: { contentType?: string; signal?: AbortSignal } = {},
  ): Promise<StoredArtifact> {
    const target = this.pathOf(key);
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true });
    // Same directory as the target: rename is atomic only within one file system. The dot hides it
    // from casual listings; the random part keeps concurrent puts of one key apart.
    const temp = path.join(dir, `.${path.basename(target)}.${randomUUID()}.partial`);
    const hash = createHash('sha256');
    let bytes = 0;
    // Hash and count on the way through: the file is never held in memory as a whole.
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
