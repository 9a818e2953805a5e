// Where generation outputs are kept. An interface so the local folder used today can be swapped for
// an object store (S3, GCS …) without touching the activities.

export interface StoredArtifact {
  /** Where the copy is, e.g. file:///abs/dir/media/wf/task/0-video.mp4. */
  uri: string;
  bytes: number;
  /** Hex sha256 of the bytes written. */
  sha256: string;
  contentType?: string;
}

export interface ArtifactStore {
  /** Where the store keeps things, for logs (e.g. file:///abs/dir). */
  readonly location: string;
  /**
   * Streams `body` to `key` (a relative, '/'-separated path), hashing while it writes; atomic (no half
   * file visible under `key`); overwrites an existing key (so a retried copy is idempotent).
   */
  put(
    key: string,
    body: AsyncIterable<Uint8Array>,
    meta?: { contentType?: string; signal?: AbortSignal },
  ): Promise<StoredArtifact>;
}

export class InvalidArtifactKeyError extends Error {
  override readonly name = 'InvalidArtifactKeyError';
  constructor(
    readonly key: string,
    readonly rule: string,
  ) {
    super(`Invalid artifact key ${JSON.stringify(key)}: ${rule}`);
  }
}

/**
 * Checks a key and returns its segments. Keys become file paths (and object names later), so anything
 * that could climb out of the store's root or mean different things on different systems is refused.
 */
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
