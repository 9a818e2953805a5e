// Time to the first workflow, as a newcomer meets it: a fresh clone of this checkout's HEAD, `npm ci`, `npm start`
// (the build, getting the Temporal server and UI server, the stack), then the README's first mediaGeneration, --wait.
// By default the Go caches are empty folders of its own (--keep-go-cache: the user's), so the server is built from
// nothing. With --mirror, the Temporal programs come as a machine with a route out gets them: release archives,
// checksummed, from a local mirror of GitHub's release paths (TEMPORAL_RELEASES_URL), and no `go` on PATH.
// Writes bench-results/first-workflow[-mirror].json (docs/starter.md#temporal-programs).
//
//   npm run build && node lib/bench/first-workflow.js [--keep-go-cache | --mirror]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getFreePort } from '../src/devserver/processes';
import { mirrorAllReleases, pathWithoutGo, serveMirror } from './support/release-mirror';

const root = path.resolve(__dirname, '..', '..');
const seconds = (ms: number): number => Math.round(ms / 100) / 10;

interface LogLine {
  time: string;
  message: string;
  component?: string;
}

/** Runs `cmd` in `cwd` to its end; its wall time in ms. */
function timed(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const began = Date.now();
  execFileSync(cmd, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 64 << 20 });
  return Date.now() - began;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'first-workflow-'));
  const clone = path.join(work, 'platform-ops');
  const keepGoCache = process.argv.includes('--keep-go-cache');
  const mirrored = process.argv.includes('--mirror');
  const [port, uiPort, emulatorPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
  const mirror = mirrored ? await startMirror(path.join(work, 'mirror')) : undefined;
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TEMPORAL_|PLATFORM_|WORKER_)/.test(k))),
    ...(keepGoCache ? {} : { GOMODCACHE: path.join(work, 'gomod'), GOCACHE: path.join(work, 'gocache') }),
    ...(mirror ? { TEMPORAL_RELEASES_URL: mirror.url, PATH: pathWithoutGo() } : {}),
    TEMPORAL_DEV_PORT: String(port),
    TEMPORAL_DEV_UI_PORT: String(uiPort),
    EMULATOR_PORT: String(emulatorPort),
    LOG_FORMAT: 'json',
  };
  let stack: ReturnType<typeof spawn> | undefined;
  try {
    execFileSync('git', ['clone', '-q', root, clone]);
    const npmCiMs = timed('npm', ['ci', '--no-audit', '--no-fund'], clone, env);

    // `npm start` as the README says; its log lines (JSON here) say when each part ended.
    const startedAt = Date.now();
    stack = spawn('npm', ['start'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const lines: Array<LogLine & { at: number }> = [];
    let buffered = '';
    stack.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const text = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (text.startsWith('{')) lines.push({ ...(JSON.parse(text) as LogLine), at: Date.now() });
      }
    });
    const when = async (match: (l: LogLine) => boolean, what: string): Promise<LogLine & { at: number }> => {
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        if (stack!.exitCode !== null) throw new Error(`npm start ended (${stack!.exitCode}) before ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const first = await when(() => true, 'its first log line');
    const binaries = await when((l) => l.message.startsWith('Using the Temporal server v'), 'a Temporal server');
    const up = await when((l) => l.message.startsWith('The local stack is up'), 'the stack');

    const workflowMs = timed(
      'npm',
      ['run', 'starter', '--', 'start', 'mediaGeneration', '--prompt', 'a red fox', '--wait'],
      clone,
      { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
    );
    const parts = {
      npmCiS: seconds(npmCiMs),
      // From `npm start` to its first log line: `npm run build` and loading the starter.
      buildS: seconds(first.at - startedAt),
      temporalServerS: seconds(binaries.at - first.at),
      stackS: seconds(up.at - binaries.at),
      firstWorkflowS: seconds(workflowMs),
    };
    const result = {
      measuredAt: new Date().toISOString(),
      programs: mirror ? 'release archives from a local mirror, no go on PATH' : 'built with Go',
      goCaches: mirror ? 'none (no go)' : keepGoCache ? 'the user’s' : 'empty',
      binaries: binaries.message,
      parts,
      totalS: seconds(npmCiMs + (up.at - startedAt) + workflowMs),
      // What a user waits for between the two commands' ends: `npm ci` done, the stack up.
      npmCiToStackUpS: seconds(up.at - startedAt),
    };
    const outDir = path.join(root, 'bench-results');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      path.join(outDir, mirror ? 'first-workflow-mirror.json' : 'first-workflow.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await mirror?.close();
    if (stack?.pid) {
      process.kill(-stack.pid, 'SIGINT');
      await new Promise((r) => stack!.once('exit', r));
    }
    // The Go module cache is read-only by design.
    execFileSync('chmod', ['-R', 'u+w', work]);
    rmSync(work, { recursive: true, force: true });
  }
}

/** The release archives of the programs this checkout has, served as GitHub serves them. */
async function startMirror(root: string) {
  await mirrorAllReleases(root, (msg) => console.error(`[mirror] ${msg}`));
  return serveMirror(root);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
