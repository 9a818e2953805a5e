// Throughput of the emulator's task-result route: the emulator runs in a child process (its own event
// loop and core, as in real use), this process submits a few tasks and then polls task-result with
// many keep-alive requests in flight, and reports requests per second and latency percentiles.
//
//   npm run build && node lib/bench/emulator-throughput.js [--duration=5000] [--concurrency=64] [--tasks=16]
//
// Exits 1 when the rate is under the target (2,000 requests per second on a 2-core machine).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { compiledEmulatorMain, startEmulatorProcess } from './support/emulator-process';

export const TARGET_RPS = 2_000;

export interface EmulatorBenchOptions {
  /** Real milliseconds of measured polling (after the warm-up). */
  durationMs: number;
  warmupMs: number;
  /** Requests in flight at once, each on its own keep-alive connection. */
  concurrency: number;
  /** Tasks polled round-robin: half finish at once, half stay PROCESSING (the uncached path). */
  tasks: number;
  /** The compiled emulator entry (packages/emulator/lib/main.js). */
  mainScript: string;
}

export interface EmulatorBenchResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  concurrency: number;
  statuses: Record<string, number>;
  target: number;
  passed: boolean;
}

export const DEFAULT_BENCH_OPTIONS: EmulatorBenchOptions = {
  durationMs: 5_000,
  warmupMs: 1_000,
  concurrency: 64,
  tasks: 16,
  mainScript: compiledEmulatorMain(),
};

interface Reply {
  status: number;
  body: string;
}

function request(agent: http.Agent, url: string, method: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${DEV_API_KEY}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runEmulatorThroughputBench(
  opts: Partial<EmulatorBenchOptions> = {},
): Promise<EmulatorBenchResult> {
  // Options given as undefined keep their defaults.
  const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  const o: EmulatorBenchOptions = { ...DEFAULT_BENCH_OPTIONS, ...given };
  const { url, stop } = await startEmulatorProcess(o.mainScript);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  try {
    const ids: string[] = [];
    for (let i = 0; i < o.tasks; i++) {
      // Half finish at once (their answer is cached), half run for an hour (built per poll).
      const marker = i % 2 === 0 ? '[emulator:duration=10]' : '[emulator:duration=3600000]';
      const res = await request(agent, `${url}/v3/async/vendor-v3.0-pro-t2v`, 'POST', {
        prompt: `bench ${i} ${marker}`,
      });
      if (res.status !== 200) throw new Error(`submit failed: HTTP ${res.status} ${res.body}`);
      ids.push((JSON.parse(res.body) as { task_id: string }).task_id);
    }
    const paths = ids.map((id) => `${url}/v3/async/task-result?task_id=${encodeURIComponent(id)}`);

    let measuring = false;
    let stop = false;
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let errors = 0;
    let next = 0;
    const worker = async () => {
      while (!stop) {
        const target = paths[next++ % paths.length];
        const started = performance.now();
        try {
          const res = await request(agent, target, 'GET');
          if (measuring) {
            latencies.push(performance.now() - started);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (res.status !== 200) errors++;
          }
        } catch {
          if (measuring) errors++;
        }
      }
    };
    const workers = Array.from({ length: o.concurrency }, () => worker());
    await new Promise((r) => setTimeout(r, o.warmupMs));
    measuring = true;
    const started = performance.now();
    await new Promise((r) => setTimeout(r, o.durationMs));
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    stop = true;
    await Promise.all(workers);

    const sorted = Float64Array.from(latencies).sort();
    const round = (n: number) => Math.round(n * 100) / 100;
    const rps = Math.round(latencies.length / seconds);
    return {
      requests: latencies.length,
      errors,
      seconds: round(seconds),
      rps,
      p50Ms: round(percentile(sorted, 50)),
      p90Ms: round(percentile(sorted, 90)),
      p99Ms: round(percentile(sorted, 99)),
      maxMs: round(sorted.length ? sorted[sorted.length - 1] : 0),
      concurrency: o.concurrency,
      statuses,
      target: TARGET_RPS,
      passed: rps >= TARGET_RPS && errors === 0,
    };
  } finally {
    agent.destroy();
    await stop();
  }
}

function argValue(name: string): number | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (!arg) return undefined;
  const n = Number(arg.slice(name.length + 3));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

if (require.main === module) {
  runEmulatorThroughputBench({
    durationMs: argValue('duration'),
    concurrency: argValue('concurrency'),
    tasks: argValue('tasks'),
  }).then(
    (r) => {
      console.log(
        `task-result: ${r.rps} req/s over ${r.seconds} s (${r.requests} requests, ${r.errors} errors, ${r.concurrency} in flight); ` +
          `latency p50 ${r.p50Ms} ms, p90 ${r.p90Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms; ` +
          `target ${r.target} req/s: ${r.passed ? 'PASS' : 'FAIL'}`,
      );
      console.log(JSON.stringify(r));
      process.exitCode = r.passed ? 0 : 1;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
