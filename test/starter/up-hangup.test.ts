// Closing the terminal that runs `npm start` stops the whole stack, as Ctrl-C does. The stack runs under a
// real pseudo-terminal (util-linux `script`); killing `script` closes the terminal's master side, and the
// kernel sends SIGHUP to the session, as when a terminal window is closed. Then every port is free. In the
// terminal, the lines are readable ones, not JSON.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getFreePort } from '../../src/devserver/processes';
import { cleanEnv, libEntry, listening, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';

it('stops the dev server, the emulator and the worker when its terminal is closed (SIGHUP)', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'up-hangup-'));
  const [port, uiPort, emulatorPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
  const env = cleanEnv({
    TEMPORAL_CLI_PATH: testEnv('temporalCli'),
    TEMPORAL_DEV_PORT: String(port),
    TEMPORAL_DEV_UI_PORT: String(uiPort),
    TEMPORAL_DEV_DATA_DIR: dataDir,
    EMULATOR_PORT: String(emulatorPort),
    ARTIFACT_DIR: path.join(dataDir, 'artifacts'),
  });
  // exec: node itself leads the terminal's session, as a shell's foreground job would get the hangup.
  const term = spawn('script', ['-qfec', `exec ${process.execPath} ${libEntry('starter.js')} up`, '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  term.stdout.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await waitFor(() => output.includes('The local stack is up.'), 90_000, `the banner; so far:\n${output}`);
    expect(await listening(port)).toBe(true);
    expect(await listening(emulatorPort)).toBe(true);
    // In a terminal: readable lines (time, level, who, message), no JSON.
    // eslint-disable-next-line no-control-regex
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: up Starting the Temporal dev server on /m);
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: worker Workflow bundle built \{.*"buildMs":\d+/m);
    expect(plain).not.toMatch(/^\{"time"/m);

    term.kill('SIGKILL');
    await waitFor(
      async () => !(await listening(port)) && !(await listening(uiPort)) && !(await listening(emulatorPort)),
      45_000,
      'every port of the stack to be free',
    );
  } finally {
    term.kill('SIGKILL');
    // Should the stack outlive its terminal (the fault this test looks for), its dev server is found by its data.
    spawnSync('pkill', ['-f', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
