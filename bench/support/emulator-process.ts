// The compiled emulator in a child process: its own event loop (and core), as in real use, so a
// benchmark measures the client side and not an emulator sharing its thread.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

/** The installed emulator package's compiled entry (its `bin`), from the compiled benchmark and its source alike. */
export function compiledEmulatorMain(): string {
  return path.join(path.dirname(require.resolve('@platform-ops/emulator/package.json')), 'lib', 'main.js');
}

/**
 * Starts the emulator on a free port; resolves with its URL once it listens. With `logFile`, everything
 * it prints (its request log, with EMULATOR_LOG=1) is appended there; otherwise dropped.
 */
export function startEmulatorProcess(
  mainScript = compiledEmulatorMain(),
  env: Record<string, string> = {},
  logFile?: string,
): Promise<{ child: ChildProcess; url: string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainScript], {
      env: { ...process.env, EMULATOR_PORT: '0', EMULATOR_HOST: '127.0.0.1', EMULATOR_LOG: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the emulator did not start within 15 s:\n${out}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        if (logFile) {
          const sink = createWriteStream(logFile, { flags: 'a' });
          sink.write(out);
          child.stdout?.pipe(sink);
          child.stderr?.pipe(sink);
        } else child.stdout?.resume();
        resolve({ child, url: m[1], stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited with ${code} before listening:\n${out}`));
    });
  });
}
