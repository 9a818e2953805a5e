// Memory and CPU of one process, read from /proc (Linux): what the kernel charges to it, every thread
// included (the SDK's Rust core and the workflow threads run inside the worker's process).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcSample {
  /** Real epoch ms of the reading. */
  at: number;
  rssBytes: number;
  /** The kernel's high-water mark of RSS over the whole life of the process. */
  hwmBytes: number;
  /** User + system CPU time, all threads. */
  cpuMs: number;
}

let ticksPerSecond: number | undefined;

/** Clock ticks per second of utime/stime (CLK_TCK; 100 on every Linux we run on, but asked once). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** One reading of a live process; throws when the process is gone. */
function readProc(pid: number): ProcSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  // utime and stime are fields 14 and 15 of the whole line.
  const fields = statFields(pid);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { at: Date.now(), rssBytes: kb('VmRSS'), hwmBytes: kb('VmHWM'), cpuMs: (ticks * 1000) / clockTicks() };
}

/**
 * Reads a process every `intervalMs` and keeps every reading, so a benchmark can ask afterwards for the
 * peak RSS or the CPU used between any two moments.
 */
export class ProcSampler {
  readonly samples: ProcSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Takes a reading now (also the last one, so the figures end at this moment); undefined once the process is gone. */
  sample(): ProcSample | undefined {
    try {
      const s = readProc(this.pid);
      this.samples.push(s);
      return s;
    } catch {
      return undefined;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Readings taken from `from` to `to` (real epoch ms), both included. */
  between(from: number, to = Infinity): ProcSample[] {
    return this.samples.filter((s) => s.at >= from && s.at <= to);
  }
}

/** Peak sampled RSS, the CPU used, and RSS at the start and the end, over a span of readings. */
export function spanFigures(samples: ProcSample[]): {
  rssStartBytes: number;
  rssPeakBytes: number;
  rssEndBytes: number;
  hwmBytes: number;
  cpuMs: number;
} {
  if (samples.length === 0) return { rssStartBytes: 0, rssPeakBytes: 0, rssEndBytes: 0, hwmBytes: 0, cpuMs: 0 };
  const first = samples[0];
  const last = samples[samples.length - 1];
  return {
    rssStartBytes: first.rssBytes,
    rssPeakBytes: samples.reduce((peak, s) => Math.max(peak, s.rssBytes), 0),
    rssEndBytes: last.rssBytes,
    hwmBytes: last.hwmBytes,
    cpuMs: last.cpuMs - first.cpuMs,
  };
}

export const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * A /proc stat line's fields after the command name (field 2, which may hold spaces and parentheses: the
 * fields are counted after its last ')'), so field N of the whole line is index N - 3.
 */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU of a process tree, in ms: the root's own and its reaped children's (cutime, cstime), and every live
 * descendant's. PostgreSQL serves each connection from a child of its postmaster, so this is all of it.
 */
export function readTreeCpuMs(rootPid: number): number {
  const parentOf = new Map<number, number>();
  const ticksOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const f = statFields(pid);
      parentOf.set(pid, Number(f[1]));
      ticksOf.set(pid, Number(f[11]) + Number(f[12]) + (pid === rootPid ? Number(f[13]) + Number(f[14]) : 0));
    } catch {
      // Gone between the listing and the read: its time is in its parent's cutime once reaped.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parentOf.get(p) ?? 0, hops++) if (p === rootPid) return true;
    return false;
  };
  if (!ticksOf.has(rootPid)) throw new Error(`process ${rootPid} is gone`);
  let ticks = 0;
  for (const [pid, t] of ticksOf) if (inTree(pid)) ticks += t;
  return (ticks * 1000) / clockTicks();
}
