// The children of a process that is killed outright (kill -9, a crash) are stopped all the same: the guard
// (src/devserver/processes.ts) sees the pipe from their parent close and stops them as stop() would, their whole
// process group; then it goes too. Runs the compiled lib/, as `npm start` does.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { libEntry, waitFor } from '../helpers/processes';

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  args: string;
}

function processTable(): Proc[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const [state = '?', ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
        return [{ pid: Number(name), ppid: Number(ppid), state, args }];
      } catch {
        return [];
      }
    });
}

const running = (pids: number[]): Proc[] => processTable().filter((p) => pids.includes(p.pid) && p.state !== 'Z');

const itOnLinux = process.platform === 'linux' ? it : it.skip;

itOnLinux('stops the children of a process killed with SIGKILL, their own children too, then exits', async () => {
  // `plain` stops at SIGTERM and leaves its own child behind; `stubborn` (and its child) ignore SIGTERM: SIGKILL
  // after its grace time. Both in process groups of their own (detached, the default), as the dev server is.
  const parentSource = `
    const { startManagedProcess } = require(${JSON.stringify(libEntry('devserver/processes.js'))});
    const plain = startManagedProcess({ name: 'plain', file: 'sh', args: ['-c', 'sleep 300 & wait'] });
    const stubborn = startManagedProcess({
      name: 'stubborn', file: 'sh', args: ['-c', 'trap "" TERM; sleep 301 & wait'], graceMs: 1000,
    });
    setTimeout(() => console.log(JSON.stringify([plain.pid, stubborn.pid])), 300);
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['-e', parentSource], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  parent.stdout.on('data', (d: Buffer) => (said += d.toString()));
  let all: number[] = [];
  try {
    await waitFor(() => said.includes('\n'), 10_000, 'the children to start');
    const children = JSON.parse(said) as number[];
    const table = processTable();
    const grandchildren = table.filter((p) => children.includes(p.ppid)).map((p) => p.pid);
    const guard = table.filter((p) => p.ppid === parent.pid && p.args.endsWith(`platform-ops-guard ${parent.pid}`));
    expect(grandchildren).toHaveLength(2);
    expect(guard).toHaveLength(1);
    all = [...children, ...grandchildren, guard[0].pid];
    expect(running(all)).toHaveLength(5);

    parent.kill('SIGKILL');
    await waitFor(() => running(all).length === 0, 10_000, 'the children, theirs and the guard to be gone').catch(
      () => {
        throw new Error(
          `left running:\n${running(all)
            .map((p) => `${p.pid} ${p.args.slice(0, 80)}`)
            .join('\n')}`,
        );
      },
    );
  } finally {
    parent.kill('SIGKILL');
    for (const p of running(all)) process.kill(p.pid, 'SIGKILL');
  }
});

itOnLinux('lets its guard go when the process ends after stopping its children', async () => {
  const parentSource = `
    const { startManagedProcess } = require(${JSON.stringify(libEntry('devserver/processes.js'))});
    const child = startManagedProcess({ name: 'child', file: 'sleep', args: ['300'] });
    setTimeout(() => child.stop().then(() => console.log('stopped')), 300);
  `;
  const parent = spawn(process.execPath, ['-e', parentSource], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  parent.stdout.on('data', (d: Buffer) => (said += d.toString()));
  const exited = new Promise<number | null>((resolve) => parent.once('exit', resolve));
  const guardOf = (): Proc[] => processTable().filter((p) => p.args.endsWith(`platform-ops-guard ${parent.pid}`));
  await waitFor(() => guardOf().length === 1 || said.includes('stopped'), 10_000, 'the guard to start');
  const guard = guardOf().map((p) => p.pid);
  expect(guard).toHaveLength(1);
  // Nothing left to do but the guard: it neither keeps the process alive nor outlives it.
  expect(await exited).toBe(0);
  expect(said).toContain('stopped');
  await waitFor(() => running(guard).length === 0, 5_000, 'the guard to exit');
});
