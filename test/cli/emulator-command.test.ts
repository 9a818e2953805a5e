// `platform-ops emulator` as a process (lib/, built by `npm test`): a bad flag or scenario file is a
// usage error naming the flag and the rule; a good one listens, plays the scenario, and stops on SIGTERM.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanEnv, runNode, startNode, waitFor } from '../helpers/processes';

describe('platform-ops emulator', () => {
  it('refuses bad flags and a bad scenario with exit status 2, naming the flag and the rule', async () => {
    const ports = await runNode('starter.js', ['emulator', '--port', '99999', '--clock-speed', '0'], cleanEnv({}));
    expect(ports.code).toBe(2);
    expect(ports.stderr).toContain('--port: must be at most 65535');
    expect(ports.stderr).toContain('--clock-speed: must be greater than 0');

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'scenario-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'x', events: [{ at: '1 minute', do: 'faults', routes: {} }] }));
    const scenario = await runNode('starter.js', ['emulator', '--port', '0', '--scenario', file], cleanEnv({}));
    expect(scenario.code).toBe(2);
    expect(scenario.stderr).toContain(`--scenario ${file}: events[0].at: must be a duration`);
  });

  it('runs with EMULATOR_* under its flags, and stops on SIGTERM', async () => {
    const { child, output } = startNode('starter.js', cleanEnv({ EMULATOR_PORT: '1', EMULATOR_CLOCK_SPEED: '7' }), [
      'emulator',
      '--port',
      '0',
    ]);
    try {
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+ \(clock speed 7\)/.test(output()), 20_000, output());
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((r) => child.once('close', r));
    expect(code).toBe(0);
    expect(output()).toContain('SIGTERM: stopping the emulator');
  });
});
