// Debian's chromium for the Web UI test, installed with apt-get when it is missing (the test setup
// installs what it needs; playwright-core never downloads a browser).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

const found = () => [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => !!p && existsSync(p));

export async function findOrInstallChromium(log: (line: string) => void = () => {}): Promise<string> {
  const present = found();
  if (present) return present;
  if (process.getuid?.() !== 0) {
    throw new Error(
      'The Web UI test needs Debian\'s chromium: run "apt-get install chromium" as root, or set CHROMIUM_PATH.',
    );
  }
  log('installing Debian chromium with apt-get (about a minute)');
  const install = () =>
    run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 * 1024 * 1024,
    });
  // A fresh machine may not have read the package lists yet.
  await install().catch(async () => {
    await run('apt-get', ['update'], { maxBuffer: 64 * 1024 * 1024 });
    await install();
  });
  const installed = found();
  if (!installed) throw new Error(`apt-get installed chromium, but none of ${CANDIDATES.join(', ')} exists`);
  return installed;
}
