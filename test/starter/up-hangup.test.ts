// Closing the terminal that runs `npm start` stops the whole stack, as Ctrl-C does (docs/starter.md#up-the-local-stack).
//
// `npm start` runs as the README says, under a real pseudo-terminal: util-linux `script` (part of every Debian system,
// nothing to install; node-pty would need a native build) runs it as the leader of the terminal's session, npm runs
// `sh -c "npm run build --silent && node lib/src/starter.js up"`, and the three are the terminal's foreground
// process group. The dev server that `up` starts is in a session of its own, which no terminal signal reaches.
//
// The terminal is closed as a terminal window is: its foreground group gets SIGHUP while the terminal is still there,
// then the master side closes (`script` is killed). How many SIGHUPs reach `up`, and when, depends on the terminal,
// the shell and the kernel (a terminal may signal its child's process group itself; bash passes its own SIGHUP on
// to its jobs; npm has no SIGHUP handler, npm 11 passes on SIGINT and SIGTERM only, and dies of it; the exit of the
// session's leader has the kernel send the foreground group one more). So the test sends one every 25 ms for a
// second: one lands at whatever moment of `up`'s shutdown. Before `up` held its stop signals, the first one after
// the Runtime had dropped its handlers killed it outright, and its dev server served on.
//
// Then, within 30 s, no port of the stack serves and no process of it is left: those of the terminal's session, all
// that descend from them (the dev server, the guard), whatever listened on the stack's ports, and whatever names the
// test's folders on its command line.
//
// It runs in a copy of the checkout, so that `npm start`'s build rewrites that copy's lib/, not the one other test
// files run at the same time. The copy is inside the checkout (.cache/), where the checkout's node_modules is found
// as it is from the checkout itself: through a symlink, the build's declarations could not name some of its types.
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { getFreePort } from '../../src/devserver/processes';
import { cleanEnv, listening, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';

const ROOT = path.resolve(__dirname, '..', '..');
// What `npm start` does not need, or must not share with the checkout.
const NOT_COPIED = new Set([
  '.git',
  '.cache',
  'node_modules',
  'lib',
  '.temporal',
  '.data',
  'coverage',
  'artifacts',
  'test',
]);

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** The foreground process group of its terminal (-1: none). */
  tpgid: number;
  state: string;
  args: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session tty_nr tpgid …", where comm may hold spaces and parentheses.
    const [state = '?', ppid, pgid, sid, , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), tpgid: Number(tpgid), state, args };
  } catch {
    return undefined; // gone
  }
}

const processTable = (): Proc[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readProc(Number(name)) ?? []);

/** The pids with a socket listening on one of `ports` (TCP, v4 or v6): /proc/net/tcp*, then every process's fds. */
function listenersOn(ports: number[]): number[] {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st … inode
      const cols = line.trim().split(/\s+/);
      const [local, state, inode] = [cols[1], cols[3], cols[9]];
      if (!local || state !== '0A' || !inode) continue;
      if (ports.includes(parseInt(local.slice(local.lastIndexOf(':') + 1), 16))) inodes.add(inode);
    }
  }
  const pids = new Set<number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      for (const fd of readdirSync(`/proc/${name}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${name}/fd/${fd}`));
        if (m && inodes.has(m[1])) pids.add(Number(name));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return [...pids];
}

/** `roots` and every process that descends from them. */
function withDescendants(table: Proc[], roots: number[]): Proc[] {
  const found = new Map(table.filter((p) => roots.includes(p.pid)).map((p) => [p.pid, p]));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

const describeProc = (p: Proc): string => `pid ${p.pid} (session ${p.sid}, group ${p.pgid}): ${p.args.slice(0, 160)}`;

const itOnLinux = process.platform === 'linux' ? it : it.skip;

itOnLinux(
  'stops the dev server, the emulator, the worker and the webhook receiver when its terminal is closed (SIGHUP)',
  async () => {
    mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
    const work = mkdtempSync(path.join(ROOT, '.cache', 'up-hangup-'));
    const checkout = path.join(work, 'checkout');
    const dataDir = path.join(work, 'data');
    for (const entry of readdirSync(ROOT).filter((name) => !NOT_COPIED.has(name))) {
      cpSync(path.join(ROOT, entry), path.join(checkout, entry), {
        recursive: true,
        filter: (src) => path.basename(src) !== 'node_modules',
      });
    }
    // The cache of Temporal builds, which `up` would otherwise look for (or make) in the copy.
    const builds = path.join(ROOT, '.temporal');
    if (existsSync(builds)) symlinkSync(builds, path.join(checkout, '.temporal'));

    const ports = {
      temporal: await getFreePort(),
      temporalUi: await getFreePort(),
      emulator: await getFreePort(),
      webhooks: await getFreePort(),
      metrics: await getFreePort(),
    };
    const env = cleanEnv({
      TEMPORAL_CLI_PATH: testEnv('temporalCli'),
      TEMPORAL_DEV_PORT: String(ports.temporal),
      TEMPORAL_DEV_UI_PORT: String(ports.temporalUi),
      TEMPORAL_DEV_DATA_DIR: dataDir,
      EMULATOR_PORT: String(ports.emulator),
      WEBHOOK_LISTEN: `127.0.0.1:${ports.webhooks}`,
      WEBHOOK_SECRET: 'a-webhook-secret-of-at-least-32-characters',
      METRICS_PORT: String(ports.metrics),
      ARTIFACT_DIR: path.join(work, 'artifacts'),
      TERM: 'xterm',
    });
    // `exec`: npm itself leads the terminal's session, whichever shell `script` starts (dash would stay in between).
    const term = spawn('script', ['-qfec', 'exec npm start', '/dev/null'], {
      cwd: checkout,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    term.stdout.on('data', (d: Buffer) => (output += d.toString()));
    term.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const allPorts = Object.values(ports);
    let stack: Proc[] = [];
    // The stack's processes as they are now: the pid lists, the listeners, and any that names the test's folder.
    const survivors = (): Proc[] => {
      const now = processTable().filter((p) => p.state !== 'Z');
      const byPid = new Set([...stack.map((p) => p.pid), ...listenersOn(allPorts)]);
      return now.filter(
        (p) => p.pid !== process.pid && p.pid !== term.pid && (byPid.has(p.pid) || p.args.includes(work)),
      );
    };
    try {
      // What to try next: printed once the stack is up (the build alone takes tens of seconds).
      await waitFor(() => output.includes('Try, in another terminal:'), 300_000, 'the banner').catch((err: Error) => {
        throw new Error(`${err.message}; the terminal shows:\n${output}`);
      });
      for (const port of allPorts) expect(await listening(port)).toBe(true);
      // In a terminal: readable lines (time, level, who, message), no JSON.
      // eslint-disable-next-line no-control-regex
      const plain = output.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: up Starting the Temporal dev server on /m);
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: worker Workflow bundle built \{.*"buildMs":\d+/m);
      expect(plain).not.toMatch(/^\{"time"/m);

      const table = processTable();
      const leader = table.find((p) => p.ppid === term.pid);
      if (!leader) throw new Error('script started no session');
      const session = table.filter((p) => p.sid === leader.sid);
      stack = withDescendants(table, [
        ...session.map((p) => p.pid),
        ...listenersOn(allPorts),
        ...table.filter((p) => p.args.includes(work)).map((p) => p.pid),
      ]);
      // As the README has it: npm, then the shell of its script, then `up`, all in the terminal's session.
      expect(leader.args).toMatch(/^npm start\b/);
      const up = session.find((p) => / lib\/src\/starter\.js up$/.test(p.args));
      expect(up).toBeDefined();
      expect(session.map((p) => p.pid)).toContain(up!.ppid);
      expect(leader.tpgid).toBe(up!.pgid);
      const dataHolders = stack.filter((p) => p.args.includes(dataDir));
      expect(dataHolders.length).toBeGreaterThan(0);

      // The terminal's foreground group gets SIGHUP, again and again for a second; then the terminal goes.
      const hangUp = (): void => {
        try {
          process.kill(-leader.tpgid, 'SIGHUP');
        } catch {
          // the group is gone
        }
      };
      hangUp();
      const again = setInterval(hangUp, 25);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      clearInterval(again);
      term.kill('SIGKILL');

      const hungUp = Date.now();
      let left: Proc[] = [];
      let serving: number[] = [];
      await waitFor(
        async () => {
          left = survivors();
          serving = [];
          for (const port of allPorts) if (await listening(port)) serving.push(port);
          return left.length === 0 && serving.length === 0;
        },
        30_000,
        'the stack to stop',
      ).catch(() => {
        throw new Error(
          `${Math.round((Date.now() - hungUp) / 1000)} s after the hangup, ports still serving: ` +
            `[${serving.join(', ')}]; processes left:\n${left.map(describeProc).join('\n')}`,
        );
      });
    } finally {
      term.kill('SIGKILL');
      // Should the stack outlive its terminal (the fault this test looks for), it is stopped here, by pid.
      for (const p of survivors()) {
        for (const target of p.pgid === p.pid ? [-p.pid, p.pid] : [p.pid]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // gone already
          }
        }
      }
      rmSync(work, { recursive: true, force: true });
    }
  },
  400_000,
);
