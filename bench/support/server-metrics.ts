// Requests the Temporal server's frontend served, from its own Prometheus metrics: the counter
// `service_requests`, one series per gRPC operation. Read from outside, so the figures hold whatever
// the worker does to wait (heartbeats, retries, timers, signals).

export interface RequestsSnapshot {
  /** Real epoch ms of the scrape. */
  at: number;
  total: number;
  byOperation: Record<string, number>;
}

export interface RequestsDelta {
  /** The scrapes the delta is taken between (real epoch ms); the window asked for is trimmed to them. */
  from: number;
  to: number;
  total: number;
  byOperation: Record<string, number>;
}

const METRIC = 'service_requests';

/**
 * Sums `service_requests` by operation from a Prometheus text page. In the dev server every service
 * runs in one process: only the frontend's series count, as those are the requests clients and workers
 * make, and only those of `namespace` when given (the server's own system workers use another).
 */
function parseServiceRequests(page: string, namespace?: string): Omit<RequestsSnapshot, 'at'> {
  const byOperation: Record<string, number> = {};
  let total = 0;
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${METRIC}{`) && !line.startsWith(`${METRIC} `)) continue;
    const m = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (labels.service_name !== undefined && labels.service_name !== 'frontend') continue;
    if (namespace !== undefined && labels.namespace !== namespace) continue;
    const value = Number(m[2]);
    if (!Number.isFinite(value)) continue;
    const op = labels.operation ?? 'unknown';
    byOperation[op] = (byOperation[op] ?? 0) + value;
    total += value;
  }
  return { total, byOperation };
}

async function scrapeServiceRequests(metricsUrl: string, namespace?: string): Promise<RequestsSnapshot> {
  const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${metricsUrl}: HTTP ${res.status}`);
  const page = await res.text();
  // Stamped when the page is in: the server renders it at the end of the request.
  return { at: Date.now(), ...parseServiceRequests(page, namespace) };
}

/**
 * Scrapes the server every `intervalMs` and keeps the snapshots, so the requests of any window of a
 * run can be taken afterwards (the windows worth measuring are only known once the run is over).
 */
export class RequestsRecorder {
  readonly snapshots: RequestsSnapshot[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  /** The last scrape failure, if any (a server busy enough to time out a scrape is worth knowing about). */
  lastError: string | undefined;

  constructor(
    readonly metricsUrl: string,
    readonly namespace: string | undefined,
    private readonly intervalMs = 2_000,
  ) {}

  async start(): Promise<this> {
    await this.scrape();
    if (this.snapshots.length === 0) throw new Error(`no metrics at ${this.metricsUrl}: ${this.lastError}`);
    this.timer = setInterval(() => void this.scrape(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** One scrape now (skipped while one is still running). */
  scrape(): Promise<void> {
    this.inFlight ??= scrapeServiceRequests(this.metricsUrl, this.namespace)
      .then((s) => void this.snapshots.push(s))
      .catch((err: unknown) => void (this.lastError = err instanceof Error ? err.message : String(err)))
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.scrape();
  }

  /** Requests between the first scrape at or after `from` and the last at or before `to`; undefined if there are not two. */
  between(from: number, to: number): RequestsDelta | undefined {
    const inside = this.snapshots.filter((s) => s.at >= from && s.at <= to);
    if (inside.length < 2) return undefined;
    const a = inside[0];
    const b = inside[inside.length - 1];
    const byOperation: Record<string, number> = {};
    for (const [op, n] of Object.entries(b.byOperation)) {
      const d = n - (a.byOperation[op] ?? 0);
      if (d > 0) byOperation[op] = d;
    }
    return { from: a.at, to: b.at, total: b.total - a.total, byOperation };
  }
}

/** The `n` operations with the most requests, most first. */
export function topOperations(
  byOperation: Record<string, number>,
  n = 5,
): Array<{ operation: string; requests: number }> {
  return Object.entries(byOperation)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([operation, requests]) => ({ operation, requests }));
}
