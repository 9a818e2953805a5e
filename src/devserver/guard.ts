// The guard: no child that startManagedProcess (./processes.ts) starts outlives this process, even one killed
// outright (which runs no 'exit' handler). Each child is listed with the guard, a small process in a session of its
// own that holds a pipe from this one. When that pipe closes with children still listed, the guard stops them as
// their stop() does, then SIGKILLs their whole process group when they lead one. Not on Windows.
import { spawn } from 'child_process';
import * as path from 'path';
import type { Writable } from 'stream';

// Run with `node -e`: the same from src/ and lib/. Lines: `+ pid signal graceMs group` (listed), `= pid` (already
// sent its signal), `- pid` (exited).
const GUARD_SOURCE = `'use strict';
const kids = new Map();
let buffered = '';
const send = (pid, signal) => { try { process.kill(pid, signal); } catch {} };
const alive = (pid) => {
  try { process.kill(pid, 0); } catch (err) { return err.code === 'EPERM'; }
  try {
    const stat = require('fs').readFileSync('/proc/' + pid + '/stat', 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch { return true; }
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let i; (i = buffered.indexOf('\\n')) >= 0; buffered = buffered.slice(i + 1)) {
    const [op, pid, signal, graceMs, group] = buffered.slice(0, i).split(' ');
    if (op === '+') kids.set(Number(pid), { signal, graceMs: Number(graceMs), group: group === '1', sent: false });
    else if (op === '=' && kids.has(Number(pid))) kids.get(Number(pid)).sent = true;
    else if (op === '-') kids.delete(Number(pid));
  }
});
let stopping = false;
const stopAll = () => {
  if (stopping) return;
  stopping = true;
  const since = Date.now();
  for (const [pid, kid] of kids) if (!kid.sent) send(pid, kid.signal);
  const check = () => {
    for (const [pid, kid] of kids) {
      const gone = !alive(pid);
      if (gone || Date.now() - since > kid.graceMs) send(kid.group ? -pid : pid, 'SIGKILL');
      if (gone) kids.delete(pid);
    }
    if (kids.size === 0) process.exit(0);
    setTimeout(check, 100);
  };
  check();
};
process.stdin.on('end', stopAll);
process.stdin.on('close', stopAll);
process.stdin.on('error', stopAll);
`;

let guardPipe: Writable | undefined;
let noGuard = process.platform === 'win32';

/** Started on first use; undefined where there is none (Windows, or it could not start). */
function theGuard(): Writable | undefined {
  if (guardPipe || noGuard) return guardPipe;
  // Its command line names whose guard it is (a test finds it).
  const guard = spawn(process.execPath, ['-e', GUARD_SOURCE, 'platform-ops-guard', String(process.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    cwd: path.parse(process.cwd()).root,
    env: {},
  });
  const pipe = guard.stdin as Writable & { unref?: () => void };
  const lost = (): void => {
    noGuard = true;
    guardPipe = undefined;
  };
  guard.once('error', lost);
  guard.once('exit', lost);
  pipe.on('error', lost);
  guard.unref();
  pipe.unref?.();
  guardPipe = pipe;
  return pipe;
}

export function guardChild(
  pid: number | undefined,
  how: { signal: NodeJS.Signals; graceMs: number; group: boolean },
): { signalled: () => void; unguard: () => void } {
  const tell = (line: string): void => void theGuard()?.write(line);
  if (pid === undefined || !theGuard()) return { signalled: () => undefined, unguard: () => undefined };
  tell(`+ ${pid} ${how.signal} ${how.graceMs} ${how.group ? 1 : 0}\n`);
  let listed = true;
  return {
    signalled: () => listed && tell(`= ${pid}\n`),
    unguard: () => {
      if (!listed) return;
      listed = false;
      tell(`- ${pid}\n`);
    },
  };
}
