// Memory and CPU of one process, read from /proc (Linux): what the kernel charges to it, every thread
// included (the SDK's Rust core and the workflow threads run inside the worker's process).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
export function readProc(pid: number): ProcSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, so 12 and 13 after the name.
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
