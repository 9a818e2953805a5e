// The documentation stays a newcomer's README plus a reference in docs/ that stands alone: the README
// is small, and every link in README.md and docs/**/*.md resolves inside the repository (a file or a
// folder, and a heading when it names one), so a renamed file or heading fails here instead of
// leaving a dead link. Text may not point outside the repository either (a sibling folder, the
// machine's own paths): a clone has only what is in it. Pure: reads files, starts nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** 12 KB, counted as 12,000 bytes so that the README fits under either reading of "KB". */
const README_MAX_BYTES = 12_000;

/** Folders of this machine or another that a document must never name (the repository is one of them). */
const FOREIGN_ROOTS = /(^|[\s`'"(=])\/(work|home|root|Users|mnt)\//;

interface Problem {
  file: string;
  problem: string;
}

function markdownFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found;
}

/** The text with fenced code blocks blanked out (line count kept), so code is not read as links. */
function withoutFences(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** GitHub's heading anchors: lowercase, punctuation dropped, each space a hyphen, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
      .replace(/<[^>]+>/g, ''); // inline HTML
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Inline link targets (`[text](target)`, images too, text across lines) and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, '``');
  const targets: string[] = [];
  for (const m of text.matchAll(/\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(m[1]);
  }
  for (const m of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]);
  return targets;
}

const inside = (abs: string): boolean => {
  const rel = path.relative(ROOT, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** Every problem of one document: `file` is its path from the repository root. */
function documentProblems(file: string, markdown: string): Problem[] {
  const problems: Problem[] = [];
  const report = (problem: string) => problems.push({ file, problem });
  const dir = path.dirname(path.join(ROOT, file));

  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (/^file:/i.test(target)) report(`${target}: a file URL leads outside the repository`);
      continue; // a web address
    }
    const hash = target.indexOf('#');
    const linkPath = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : target.slice(hash + 1);
    if (linkPath.startsWith('/')) {
      report(`${target}: an absolute path; link relative to this file`);
      continue;
    }
    if (linkPath === '') {
      if (anchor && !headingSlugs(markdown).has(anchor)) report(`${target}: no heading of this page has that anchor`);
      continue;
    }
    const abs = path.resolve(dir, linkPath);
    if (!inside(abs)) {
      report(`${target}: leads outside the repository`);
      continue;
    }
    if (!existsSync(abs)) {
      report(`${target}: ${path.relative(ROOT, abs)} does not exist`);
      continue;
    }
    if (anchor !== undefined && statSync(abs).isFile() && abs.endsWith('.md')) {
      if (!headingSlugs(readFileSync(abs, 'utf8')).has(anchor)) {
        report(`${target}: no heading of ${path.relative(ROOT, abs)} has the anchor #${anchor}`);
      }
    }
  }

  // Paths in the text, code included (links were checked above, so they are left out). Text names
  // files from the repository's root (`src/worker.ts`), so a `../` there leaves the repository.
  const text = markdown.replace(/\[(?:[^[\]]|\[[^\]]*\])*\]\([^)]*\)/g, '');
  for (const m of text.matchAll(/(?:\.\.\/)+[\w.-]*/g)) {
    if (!inside(path.resolve(ROOT, m[0]))) report(`${m[0]}: text points outside the repository`);
  }
  const foreign = FOREIGN_ROOTS.exec(text);
  if (foreign) report(`${foreign[0].trim()}…: text names a folder outside the repository`);
  if (markdown.includes(ROOT)) report(`${ROOT}: text names this checkout's absolute path`);
  return problems;
}

describe('documentation links', () => {
  const files = markdownFiles();

  it('keeps the README at most 12 KB', () => {
    expect(statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('finds the README and the docs, and the links in them', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', path.join('docs', 'platform.md')]));
    const readmeLinks = linkTargets(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(readmeLinks).toEqual(expect.arrayContaining(['docs/platform.md', 'docs/contributing.md']));
  });

  it.each(files)('%s: every link resolves inside the repository, and no text points outside', (file) => {
    expect(documentProblems(file, readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
  });

  it('reports broken links, missing anchors and paths outside (the check itself)', () => {
    const doc = [
      '# A page',
      'See [a missing file](missing.md), [outside](../../elsewhere/x.md), [absolute](/etc/passwd),',
      '[a missing heading](platform.md#no-such-heading), [a good heading](platform.md#errors),',
      '[a link across',
      'lines](cluster.md#the-fault-suite-npm-run-testcluster), [this page](#a-page), [not](#b) and',
      'the spec at `../shared/spec/platform-api.md` or /work/shared/notes.',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
    ].join('\n');
    const problems = documentProblems(path.join('docs', 'example.md'), doc).map((p) => p.problem);
    expect(problems).toEqual([
      'missing.md: docs/missing.md does not exist',
      '../../elsewhere/x.md: leads outside the repository',
      '/etc/passwd: an absolute path; link relative to this file',
      'platform.md#no-such-heading: no heading of docs/platform.md has the anchor #no-such-heading',
      '#b: no heading of this page has that anchor',
      '../shared: text points outside the repository',
      '/work/…: text names a folder outside the repository',
    ]);
  });

  it('makes anchors as GitHub does', () => {
    const slugs = headingSlugs(
      '# The fault suite: `npm run test:cluster`\n## A member’s ledger\n## Retry\n## Retry\n## WORKER_* and [docs](x.md)',
    );
    expect([...slugs]).toEqual([
      'the-fault-suite-npm-run-testcluster',
      'a-members-ledger',
      'retry',
      'retry-1',
      'worker_-and-docs',
    ]);
  });
});
