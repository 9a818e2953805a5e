// `npm start` after a stack that did not stop (a killed terminal, a crash): the dev server left on this checkout's
// data file is stopped and replaced; one a running `npm start` still uses, and any process that is not a dev
// server of this checkout, are left alone with a message saying what to do. Piped, `up` logs JSON lines.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getFreePort, isAlive } from '../../src/devserver/processes';
import { cleanEnv, listening, runNode, startNode, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

describe('npm start after a stack that was left running', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let leftBehind: ChildProcess | undefined;
  let up: ReturnType<typeof startNode> | undefined;
  let stranger: Server | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'up-left-behind-'));
    port = await getFreePort();
    env = cleanEnv({
      TEMPORAL_CLI_PATH: testEnv('temporalCli'),
      TEMPORAL_DEV_PORT: String(port),
      TEMPORAL_DEV_UI_PORT: String(await getFreePort()),
      TEMPORAL_DEV_DATA_DIR: dataDir,
      EMULATOR_PORT: String(await getFreePort()),
      ARTIFACT_DIR: path.join(dataDir, 'artifacts'),
    });
  });

  afterAll(async () => {
    leftBehind?.kill('SIGKILL');
    up?.child.kill('SIGKILL');
    await new Promise((resolve) => (stranger ? stranger.close(resolve) : resolve(undefined)));
    spawnSync('pkill', ['-f', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the dev server an earlier start left on its data file, and starts its own', async () => {
    // What a killed `npm start` leaves: a dev server on the checkout's data file, its parent gone.
    leftBehind = spawn(
      testEnv('temporalCli'),
      ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'].concat([
        '--db-filename',
        path.join(dataDir, 'temporal.sqlite'),
      ]),
      { stdio: 'ignore', detached: true },
    );
    const oldPid = leftBehind.pid ?? -1;
    await waitFor(() => listening(port), 30_000, 'the left-behind dev server to listen');

    up = startNode('starter.js', env, ['up']);
    await waitFor(() => up!.output().includes('The local stack is up.'), 90_000, `the stack; so far:\n${up.output()}`);
    const lines = up
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; message: string; component?: string });
    expect(lines).toContainEqual(
      expect.objectContaining({
        component: 'up',
        message: `Stopping the Temporal dev server an earlier start left running (pid ${oldPid}, data ${path.join(dataDir, 'temporal.sqlite')})…`,
      }),
    );
    expect(isAlive(oldPid)).toBe(false);
    expect(await listening(port)).toBe(true);
  }, 150_000);

  it('refuses to touch the dev server of an `npm start` that is still running', async () => {
    const second = await runNode('starter.js', ['up'], env, 60_000);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another \`npm start\` of this checkout (pid ${up!.child.pid}) is running`);
    // The first stack still answers.
    expect(await listening(port)).toBe(true);
    expect(up!.child.exitCode).toBeNull();

    up!.child.kill('SIGINT');
    expect(await exited(up!.child)).toBe(0);
    await waitFor(async () => !(await listening(port)), 20_000, 'the port to be free');
  }, 120_000);

  it('leaves a process that is not a dev server of this checkout alone, and says so', async () => {
    stranger = createServer();
    await new Promise<void>((resolve) => stranger!.listen(port, '127.0.0.1', resolve));
    const attempt = await runNode('starter.js', ['up'], env, 60_000);
    expect(attempt.code).toBe(1);
    expect(attempt.stderr).toContain(`Port ${port} is in use, and not by a dev server of this checkout`);
    expect(stranger.listening).toBe(true);
  }, 90_000);
});
