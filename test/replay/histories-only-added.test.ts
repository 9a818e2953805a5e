// Recorded histories stand for runs already in the field (docs/versioning.md): they are added, and
// retired by deletion once no such run is open, but never changed. A change that needed its
// recordings re-made to pass would break the runs those recordings stand for, so this test fails on
// any commit, or uncommitted edit, that modifies or renames a recording.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const repo = path.join(__dirname, '..', '..');
const dir = 'test/replay/histories';

/**
 * Commits that re-recorded histories before this gate existed, and why they are let through. Never
 * add to this list: record the new behaviour under a new name instead.
 */
const BEFORE_THE_GATE: Record<string, string> = {
  be377c3: 'batchJob gained search attributes; the five batchJob recordings were re-made (2026-11-22)',
  '71d4cb9': 'the budget ledger moved to a batched activity without a patch (2026-11-22)',
};

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

describe('recorded histories are only ever added', () => {
  it('no commit modified or renamed a recording', () => {
    // Without the repository's history this gate cannot be checked: say so rather than pass.
    expect(git('rev-parse', '--is-inside-work-tree')).toBe('true');
    const changed = git('log', '--diff-filter=MR', '--format=%h', '--abbrev=7', 'HEAD', '--', dir)
      .split('\n')
      .filter(Boolean)
      .filter((commit) => !Object.keys(BEFORE_THE_GATE).some((known) => commit.startsWith(known)));
    const details = changed.map((commit) => git('show', '--stat', '--format=%h %s', commit, '--', dir));
    expect(details).toEqual([]);
  });

  it('no recording is modified or renamed in the working tree', () => {
    // Deletions are how recordings retire (docs/versioning.md); anything else is a re-recording.
    const status = git('status', '--porcelain', '--', dir)
      .split('\n')
      .filter(Boolean)
      // Added (untracked or staged) and deleted recordings are fine.
      .filter((line) => !/^(\?\?|A |AM| D|D )/.test(line));
    expect(status).toEqual([]);
  });
});
