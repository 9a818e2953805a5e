// Compiles a file as another project using this package would: strict, with Node 16 resolution, which
// reads the package's `exports` (and their `types`). Resolves to '' on success, else tsc's output.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');

export function tscAsConsumer(file: string, opts: { cwd: string; emit?: boolean }): Promise<string> {
  return run(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      ...(opts.emit ? [] : ['--noEmit']),
      '--strict',
      '--skipLibCheck',
      '--target',
      'ES2022',
      '--module',
      'node16',
      '--moduleResolution',
      'node16',
      '--types',
      'node',
      // A project outside this repository has no @types/node of its own here.
      '--typeRoots',
      path.join(ROOT, 'node_modules', '@types'),
      file,
    ],
    { cwd: opts.cwd },
  ).then(
    () => '',
    (err: { stdout?: string; message?: string }) => err.stdout || (err.message ?? 'tsc failed'),
  );
}
