// Reads a JSON file a user names (fixtures, a scenario): bounded in size, and every failure a sentence
// naming the file, never its content.
import { readFileSync, statSync } from 'node:fs';

/** Larger than any fixtures or scenario file written by hand; a bigger one is a mistake. */
const MAX_JSON_FILE_BYTES = 10 * 1024 * 1024;

export function readJsonFile(path: string, refuse: (why: string) => Error): unknown {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw refuse(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (size > MAX_JSON_FILE_BYTES) throw refuse(`${path} is ${size} bytes; it must be at most ${MAX_JSON_FILE_BYTES}`);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw refuse(`cannot read ${path} as JSON (${(err as Error).message})`);
  }
}
