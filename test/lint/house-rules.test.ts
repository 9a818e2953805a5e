// The house rules hold where `npm run lint` looks: a copy of the repository (its files, node_modules linked) passes
// knip and dependency-cruiser with the project's own configs, and the same copy with one violation of each rule
// fails, naming the rule. Pure: starts no server.
import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const KNIP = 'knip --no-progress';
const DEPCRUISE = scripts.depcruise;

/** Each violation: the files it writes, the rule it breaks and how the tool's report names it. */
const VIOLATIONS: { rule: string; files: Record<string, string>; reported: RegExp }[] = [
  {
    rule: "an operation imports another operation's activities",
    files: {
      'src/operations/mediaGeneration/workflows-probe.ts':
        "import type { Activities } from '../batchJob/activities';\nexport type Probe = Activities;\n",
    },
    reported:
      /error operations-apart: src\/operations\/mediaGeneration\/workflows-probe\.ts → src\/operations\/batchJob\/activities\.ts/,
  },
  {
    rule: 'two modules import each other',
    files: {
      'src/shared/probe-a.ts': "import { b } from './probe-b';\nexport const a = (): number => b() + 1;\n",
      'src/shared/probe-b.ts': "import { a } from './probe-a';\nexport const b = (): number => a.length;\n",
    },
    reported: /error no-circular: src\/shared\/probe-[ab]\.ts →/,
  },
  {
    rule: 'workflow code does I/O',
    files: {
      'src/operations/mediaGeneration/workflows-read.ts':
        "import { readFileSync } from 'node:fs';\nexport const read = (): string => readFileSync('x', 'utf8');\n",
    },
    reported: /error workflow-sandbox: src\/operations\/mediaGeneration\/workflows-read\.ts → (node:)?fs/,
  },
];
const UNUSED_EXPORT = { file: 'src/shared/time.ts', name: 'probeUnusedExport' };

interface Run {
  code: number;
  output: string;
}

/** A tool of node_modules/.bin, run in `dir`; its exit code and everything it wrote. */
function run(dir: string, command: string): Promise<Run> {
  const [bin, ...args] = command.split(' ');
  return new Promise((resolve) => {
    execFile(
      path.join(root, 'node_modules', '.bin', bin),
      args,
      { cwd: dir, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The repository's files, tracked or new (not ignored), in a directory of their own. */
function copyOfRepository(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'house-rules-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(root, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(root, file), path.join(dir, file));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

let dir: string;
let clean: { knip: Run; depcruise: Run };
let broken: { knip: Run; depcruise: Run };

beforeAll(async () => {
  dir = copyOfRepository();
  const [knip, depcruise] = await Promise.all([run(dir, KNIP), run(dir, DEPCRUISE)]);
  clean = { knip, depcruise };
  for (const { files } of VIOLATIONS) {
    for (const [file, code] of Object.entries(files)) writeFileSync(path.join(dir, file), code);
  }
  appendFileSync(path.join(dir, UNUSED_EXPORT.file), `\nexport const ${UNUSED_EXPORT.name} = 1;\n`);
  const [knipAfter, depcruiseAfter] = await Promise.all([run(dir, KNIP), run(dir, DEPCRUISE)]);
  broken = { knip: knipAfter, depcruise: depcruiseAfter };
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('npm run lint runs both tools as this test does', () => {
  expect(scripts.lint).toContain(KNIP);
  expect(scripts.lint).toContain('npm run --silent depcruise');
  expect(DEPCRUISE).toMatch(/^depcruise .* --config \.dependency-cruiser\.cjs/);
});

it('the repository as it is passes both', () => {
  expect(clean.knip).toEqual({ code: 0, output: '' });
  expect(clean.depcruise.output).toContain('no dependency violations found');
  expect(clean.depcruise.code).toBe(0);
});

it('knip fails on an unused export, naming it', () => {
  expect(broken.knip.code).not.toBe(0);
  expect(broken.knip.output).toMatch(/Unused exports/);
  expect(broken.knip.output).toMatch(new RegExp(`${UNUSED_EXPORT.name}\\s+${UNUSED_EXPORT.file}`));
});

it.each(VIOLATIONS.map((v) => [v.rule, v.reported]))('dependency-cruiser fails when %s', (_rule, reported) => {
  expect(broken.depcruise.code).not.toBe(0);
  expect(broken.depcruise.output).toMatch(reported);
});
