// Every operation that packages/client/src/operations.ts lists has all its parts (contract, workflows,
// starter flags, activities where it has its own), and nothing is registered that the list does not
// name: adding an operation is its folders, one line in the list, its tests and its doc page. Pure:
// reads the modules and the docs, starts nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as clientPackage from '@platform-ops/client';
import { ACTIVITY_FACTORIES } from '../src/operations/activities';
import type { OperationStarter } from '../src/cli/flags';
import { mergeFlags, operationStarters } from '../src/starter/workflow-inputs';
import {
  CONTRACTS,
  OPERATIONS,
  STARTABLE_WORKFLOW_TYPES,
  WORKFLOW_TYPES,
  WORKFLOWS,
  workflowSummary,
} from '@platform-ops/client';

const root = path.join(__dirname, '..');
const operations = Object.entries(OPERATIONS);

describe('the list of operations', () => {
  it.each(operations)('%s: its contract module exports the operation under its own name', (name, op) => {
    expect((CONTRACTS as Record<string, Record<string, unknown>>)[name][name]).toBe(op);
    expect(Object.keys(op.workflows).length).toBeGreaterThan(0);
  });

  it.each(operations)('%s: src/operations/%s/workflows.ts exports exactly its workflow types', (name, op) => {
    const file = path.join(root, 'src', 'operations', name, 'workflows.ts');
    expect(existsSync(file)).toBe(true);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each operation's module, by its folder
    const exported = Object.entries(require(file) as Record<string, unknown>)
      .filter(([, value]) => typeof value === 'function')
      .map(([key]) => key)
      .sort();
    expect(exported).toEqual(Object.keys(op.workflows).sort());
  });

  it('lists the activity factory of every operation that has an activities module, and only those', () => {
    const withModule = Object.keys(OPERATIONS).filter((name) =>
      existsSync(path.join(root, 'src', 'operations', name, 'activities.ts')),
    );
    const listed = Object.entries(ACTIVITY_FACTORIES).filter(([, factory]) => factory !== null);
    expect(listed.map(([name]) => name).sort()).toEqual(withModule.sort());
    for (const [name, factory] of listed) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- each operation's module, by its folder
      const module = require(path.join(root, 'src', 'operations', name, 'activities')) as Record<string, unknown>;
      // The factory is the module's own, named for whose activities it makes.
      expect({ name, same: module[factory!.name] === factory, named: factory!.name }).toEqual({
        name,
        same: true,
        named: expect.stringMatching(/^create[A-Z]\w*Activities$/),
      });
    }
  });

  it.each(operations)('%s: the client package exports everything its contract does', (name) => {
    const contract = (CONTRACTS as Record<string, Record<string, unknown>>)[name];
    const missing = Object.keys(contract).filter((key) => !(key in clientPackage));
    expect({ name, missing }).toEqual({ name, missing: [] });
  });

  // Every operation with a workflow type to start; a member's ledger has none.
  const startable = operations.filter(([, op]) =>
    Object.keys(op.workflows).some((t) => (STARTABLE_WORKFLOW_TYPES as string[]).includes(t)),
  );
  it.each(startable)('%s: src/operations/%s/starter.ts gives the flags of each workflow type it starts', (name, op) => {
    const file = path.join(root, 'src', 'operations', name, 'starter.ts');
    expect({ name, starter: existsSync(file) }).toEqual({ name, starter: true });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each operation's module, by its folder
    const { starter } = require(file) as { starter: OperationStarter };
    // The starter lists this very module's flags (src/starter/workflow-inputs.ts).
    expect({ name, listed: operationStarters()[name] === starter }).toEqual({ name, listed: true });
    const startable = Object.keys(op.workflows).filter((t) => (STARTABLE_WORKFLOW_TYPES as string[]).includes(t));
    expect({ name, inputs: Object.keys(starter.inputs).sort() }).toEqual({ name, inputs: startable.sort() });
    for (const flags of Object.values(starter.inputs)) {
      expect(typeof flags.input).toBe('function');
      expect(flags.usage).not.toBe('');
    }
  });

  it("merges the operations' flags into one option each, and refuses one flag of two kinds", () => {
    const options = mergeFlags(operationStarters());
    const image = options.find((o) => o.flag === '--image <url>');
    expect(image?.kind).toBe('repeatable');
    expect(options.filter((o) => o.flag.startsWith('--member-id '))).toHaveLength(1);

    const declaring = (flag: string, help: OperationStarter['flags'][string]): OperationStarter => ({
      flags: { [flag]: help },
      inputs: {},
    });
    expect(() => mergeFlags({ a: declaring('--member-id <id>', 'who'), b: declaring('--member-id', 'who') })).toThrow(
      '--member-id is a value in src/operations/a/starter.ts but a switch in src/operations/b/starter.ts',
    );
    expect(() =>
      mergeFlags({ a: declaring('--member-id <id>', 'who'), b: declaring('--member-id <id>', { repeatable: 'who' }) }),
    ).toThrow('--member-id is a value in src/operations/a/starter.ts but repeatable in src/operations/b/starter.ts');
  });

  it('bundles every workflow type: src/operations/workflows.ts exports each, and nothing else', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle's entry, as the bundler reads it
    const entry = require(path.join(root, 'src', 'operations', 'workflows')) as Record<string, unknown>;
    const exported = Object.entries(entry)
      .filter(([, value]) => typeof value === 'function')
      .map(([key]) => key);
    expect(exported.sort()).toEqual([...WORKFLOW_TYPES].sort());
  });

  it.each(startable)('%s: its doc page is the README.md of its folder', (name) => {
    expect({ name, page: existsSync(path.join(root, 'src', 'operations', name, 'README.md')) }).toEqual({
      name,
      page: true,
    });
  });

  it('loads no code by a computed path under src/: every require and import names its module literally', () => {
    const computed = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const file = path.join(dir, e.name);
        if (e.isDirectory()) return computed(file);
        if (!e.name.endsWith('.ts')) return [];
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /\b(require(\.resolve)?|import)\((?!'[^']*'\))/.test(line))
          .map((line) => `${path.relative(root, file)}: ${line.trim()}`);
      });
    expect(computed(path.join(root, 'src'))).toEqual([]);
  });

  it('names every workflow type once, across all operations', () => {
    const all = Object.values(OPERATIONS).flatMap((op) => Object.keys(op.workflows));
    expect(new Set(all).size).toBe(all.length);
    expect([...WORKFLOW_TYPES].sort()).toEqual([...all].sort());
  });

  it.each(WORKFLOW_TYPES)('%s: has a summary of a valid input, and a row in docs/workflows/README.md', (type) => {
    expect(typeof WORKFLOWS[type].summary).toBe('function');
    const table = readFileSync(path.join(root, 'docs', 'workflows', 'README.md'), 'utf8');
    const row = table.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${type}\``));
    expect({ type, row: row !== undefined }).toEqual({ type, row: true });
    const page = /\]\(([^)]+\.md)\)/.exec(row ?? '')?.[1];
    expect({ type, page: page !== undefined && existsSync(path.join(root, 'docs', 'workflows', page)) }).toEqual({
      type,
      page: true,
    });
  });

  it('cuts a summary at one Web UI line', () => {
    const line = workflowSummary('evaluateDecision', { questions: new Array(3).fill({}) });
    expect(line).toBe('3 questions');
    const long = workflowSummary('restartInstance', { instanceId: 'x'.repeat(500) });
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
