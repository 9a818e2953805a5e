// Reading a workflow shows everything it answers: every query, signal and Update handler is registered
// in the workflow function itself, at its top, never in a helper out of sight. This reads the source:
// a setHandler call is allowed only in the files that define the workflows src/workflows/index.ts exports.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..', 'src', 'workflows');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files the workflows are exported from: `export { a, b } from './file'` in index.ts. */
function workflowFiles(): string[] {
  const index = readFileSync(path.join(root, 'index.ts'), 'utf8');
  return [...index.matchAll(/^export \{[^}]+\} from '(\.[^']+)';$/gm)].map((m) => path.join(root, `${m[1]}.ts`));
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
