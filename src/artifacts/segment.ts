// Ids (workflow, task, batch, report) become path segments of artifact keys. The mapping must be
// one-to-one: if "a/b" and "a_b" both became "a_b", one run's outputs would overwrite another's.
import { createHash } from 'node:crypto';

const SAFE = /^[A-Za-z0-9._-]+$/;
/** File names stop at 255 bytes; keys stay well below. */
const MAX_SEGMENT = 120;

/**
 * An id as a path segment: itself when it is short and made only of [A-Za-z0-9._-] (and not "." or
 * ".."); otherwise a readable prefix, "~" and a hash of the whole id. "~" never survives in the
 * readable part, so a hashed segment can never equal another id kept as is.
 */
export function safeSegment(id: string): string {
  if (SAFE.test(id) && !/^\.*$/.test(id) && id.length <= MAX_SEGMENT) return id;
  const readable = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${readable}~${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}
