// Where the API key must never appear: every workflow history of the namespace (as the server stores
// it, payloads and failure messages included), the processes' logs and the artifacts the worker kept.
// Histories are searched as their encoded bytes, so a key inside a payload counts as well as one in a
// failure message.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { mapBounded } from '../../src/shared/lanes';

/** Non-overlapping occurrences of `needle` in `haystack`. */
export function countOccurrences(haystack: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** Occurrences of `key` in every history of every execution (each run of a continued workflow too). */
export async function keyInHistories(client: Client, key: string): Promise<{ histories: number; occurrences: number }> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  for await (const w of client.workflow.list()) runs.push({ workflowId: w.workflowId, runId: w.runId });
  const needle = Buffer.from(key);
  const counts = await mapBounded(runs, 16, async ({ workflowId, runId }) => {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    return countOccurrences(Buffer.from(temporal.api.history.v1.History.encode(history).finish()), needle);
  });
  return { histories: runs.length, occurrences: counts.reduce((a, b) => a + b, 0) };
}

/** Every file under `p` (itself, if a file; none if it does not exist). */
export function filesUnder(p: string): string[] {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isDirectory()) return [p];
  return readdirSync(p).flatMap((name) => filesUnder(path.join(p, name)));
}

/** The longest line of `content`, in bytes. */
function longestLine(content: Buffer): number {
  let longest = 0;
  for (let from = 0; from < content.length;) {
    const end = content.indexOf(10, from);
    const to = end === -1 ? content.length : end;
    longest = Math.max(longest, to - from);
    from = to + 1;
  }
  return longest;
}

/**
 * Occurrences of `key` in each file under `root`, keyed by its path relative to `root`; with the bytes read and each
 * file's longest line.
 */
export function keyInFiles(
  root: string,
  key: string,
): { bytes: number; byFile: Record<string, number>; longestLineByFile: Record<string, number> } {
  const needle = Buffer.from(key);
  const byFile: Record<string, number> = {};
  const longestLineByFile: Record<string, number> = {};
  let bytes = 0;
  for (const file of filesUnder(root)) {
    const content = readFileSync(file);
    const name = path.relative(root, file) || path.basename(file);
    bytes += content.length;
    byFile[name] = countOccurrences(content, needle);
    longestLineByFile[name] = longestLine(content);
  }
  return { bytes, byFile, longestLineByFile };
}
