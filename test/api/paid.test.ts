// PAID_WORKFLOW_TYPES against the workflows themselves (unit, reads the source): an operation whose workflows
// make a paid call (paidCall) or start children has a paid type in the list, and one that does neither has none.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PAID_WORKFLOW_TYPES, paidFor } from '../../src/api/paid';
import { OPERATIONS, STARTABLE_WORKFLOW_TYPES, type OperationName } from '@platform-ops/client';

const WORKFLOWS_DIR = path.join(__dirname, '..', '..', 'src', 'operations');

/** The operation's workflow code (not its contract or starter flags). */
function workflowCode(operation: string): string {
  const dir = path.join(WORKFLOWS_DIR, operation);
  return readdirSync(dir)
    .filter((f) => /^workflows(-[\w-]+)?\.ts$/.test(f))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

describe('PAID_WORKFLOW_TYPES', () => {
  it.each(Object.keys(OPERATIONS) as OperationName[])(
    'names a type of %s exactly when it pays or starts children',
    (op) => {
      const code = workflowCode(op);
      const pays = /\bpaidCall\(/.test(code) || /\b(executeChild|startChild)(<[^>]*>)?\(/.test(code);
      const listed = Object.keys(OPERATIONS[op].workflows).filter((t) => paidFor(t) !== undefined);
      expect(listed.length > 0).toBe(pays);
    },
  );

  it("lists only types callers start: by a start, or an endpoint's run by its first deploy", () => {
    const started = [...STARTABLE_WORKFLOW_TYPES, 'serverlessEndpoint'];
    for (const type of Object.keys(PAID_WORKFLOW_TYPES)) expect(started).toContain(type);
  });

  it('says nothing of a name that is not a type', () => {
    expect(paidFor('restartInstance')).toBeUndefined();
    expect(paidFor('toString')).toBeUndefined();
  });
});
