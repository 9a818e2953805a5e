// `start batchJob --file requests.jsonl`: the file is checked here, line by line, before anything
// starts. A small one travels inline; a larger one is read by the worker from the shared disk, since
// a workflow input must stay far below Temporal's 2 MB limit.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BATCH_INLINE_MAX_BYTES } from '../workflows/batch/contract';
import { BATCH_ENDPOINTS, batchInputProblems, jsonlLines, type BatchEndpoint } from '../platform/schemas/batches';
import { formatIssues } from '../platform/validation';
import { CliError, ExitCode } from './exit-codes';

export function batchEndpoint(value: string | undefined): BatchEndpoint {
  if (value === undefined)
    throw new CliError(`--endpoint is required: one of ${BATCH_ENDPOINTS.join(', ')}.`, ExitCode.Usage);
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(value)) {
    throw new CliError(`--endpoint must be one of ${BATCH_ENDPOINTS.join(', ')}, not "${value}".`, ExitCode.Usage);
  }
  return value as BatchEndpoint;
}

/** `{requests}` for a small file, `{inputFileUri}` for a large one; a bad line stops here. */
export function batchFileInput(
  file: string,
  endpoint: BatchEndpoint,
  note: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): { requests: unknown[] } | { inputFileUri: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read --file: ${(err as Error).message}`, ExitCode.Usage);
  }
  const problems = batchInputProblems(text, endpoint);
  if (problems.length > 0) throw new CliError(`--file ${file}: ${formatIssues(problems)}.`, ExitCode.Usage);
  if (Buffer.byteLength(text) <= BATCH_INLINE_MAX_BYTES) {
    return { requests: jsonlLines(text).map((l) => JSON.parse(l.text) as unknown) };
  }
  const uri = pathToFileURL(path.resolve(file)).href;
  // The worker reads file:// URIs only inside its INPUT_FILE_DIR (default .data/inputs).
  note(
    `${file} is larger than ${BATCH_INLINE_MAX_BYTES / 1024} KB: the worker will read it from ${uri}, which must be inside the worker's INPUT_FILE_DIR.`,
  );
  return { inputFileUri: uri };
}
