// Reading a workflow shows everything it answers: every query, signal and Update handler is registered
// in the workflow function itself, at its top, never in a helper out of sight. This reads the source:
// a setHandler call is allowed only in the files that define the workflows: each operation's
// workflows.ts (packages/client/src/operations.ts lists them), and the files it re-exports workflows from.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS } from '@platform-ops/client';

const root = path.join(__dirname, '..', '..', 'src', 'operations');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each operation's workflows.ts, and the files it re-exports from (`export { a } from './file'`). */
function workflowFiles(): string[] {
  return Object.keys(OPERATIONS).flatMap((op) => {
    const entry = path.join(root, op, 'workflows.ts');
    const reexported = [...readFileSync(entry, 'utf8').matchAll(/^export \{[^}]+\} from '(\.[^']+)';$/gm)];
    return [entry, ...reexported.map((m) => path.join(root, op, `${m[1]}.ts`))];
  });
}

describe('workflow handlers', () => {
  it('are registered only in the workflow functions, not in helpers', () => {
    const allowed = workflowFiles();
    expect(allowed.length).toBeGreaterThanOrEqual(6);
    const registering = sourceFiles(root).filter((file) => /\bsetHandler\(/.test(readFileSync(file, 'utf8')));
    const outside = registering.filter((file) => !allowed.includes(file)).map((file) => path.relative(root, file));
    expect(outside).toEqual([]);
  });
});
