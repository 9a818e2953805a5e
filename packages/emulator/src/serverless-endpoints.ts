// Serverless endpoints: each worker's phases (pulling, starting, running) are derived from its start time on the
// emulated clock, like instances and tasks. The emulator has no traffic, so an endpoint runs exactly its minimum of
// workers. An update rolls: the new config's workers start, and the old ones stop once those run healthy. Workers
// bill per second from when they start until they stop, at the product's postpaid price per card-hour; the charges
// are posted to the caller's member whenever endpoints are read (docs/emulator.md).
import type { EndpointConfig, ValidationIssue } from '@platform-ops/client';
import type { EmulatorClock } from './clock';
import type { Accounts } from './accounts';
import type { EndpointSettings } from './fixtures';
import { PRODUCTS } from './catalog-products';
import type { Caller } from './types';

interface Markers {
  image: string;
  pullFail: boolean;
  neverHealthy: boolean;
  pullMs?: number;
  startMs?: number;
}

/** Markers in `image.image` force one endpoint's outcome without touching shared settings. */
function markersOf(image: string): Markers {
  const ms = (name: string) => {
    const m = new RegExp(`\\[emulator:${name}=(\\d{1,9})\\]`).exec(image);
    return m ? Number(m[1]) : undefined;
  };
  return {
    image,
    pullFail: image.includes('[emulator:pull_fail]'),
    neverHealthy: image.includes('[emulator:never_healthy]'),
    pullMs: ms('pull_ms'),
    startMs: ms('start_ms'),
  };
}

type Timing = Markers & { pullMs: number; startMs: number };

interface Worker {
  id: string;
  version: number;
  /** Its image's markers and phase lengths, fixed when it started. */
  t: Timing;
  startedAt: number;
  stoppedAt?: number;
}

interface Endpoint {
  id: string;
  caller: Caller;
  config: EndpointConfig;
  version: number;
  /** When the current version's workers started; the older ones stop once these run healthy. */
  rolledAt: number;
  workers: Worker[];
  deletedAt?: number;
  /** Worker-ms already charged. */
  chargedMs: number;
}

/** One endpoint in the admin view (GET /_emulator/endpoints). */
export interface EndpointAdminView {
  id: string;
  name: string;
  state: string;
  image: string;
  billingNow: number;
  billedWorkerSeconds: number;
  cost: number;
}

type WorkerPhase = { state: string; healthy: boolean; error?: string; message?: string };

export class EndpointStore {
  private readonly byId = new Map<string, Endpoint>();
  private seq = 0;
  // Set by load(), which every reset calls (the state resets once as it is made).
  settings!: EndpointSettings;

  constructor(
    private readonly clock: EmulatorClock,
    private readonly accounts: Accounts,
  ) {}

  load(settings: EndpointSettings): void {
    this.byId.clear();
    this.settings = settings;
  }

  private timing(e: Endpoint): Timing {
    const m = markersOf(e.config.image.image);
    return { ...m, pullMs: m.pullMs ?? this.settings.pullMs, startMs: m.startMs ?? this.settings.startMs };
  }

  private phase(w: Worker, now: number): WorkerPhase {
    const { t } = w;
    if (w.stoppedAt !== undefined && now >= w.stoppedAt) return { state: 'stopped', healthy: false };
    if (now < w.startedAt + t.pullMs) return { state: 'pulling', healthy: false };
    if (t.pullFail) {
      const message = `cannot pull image ${t.image.replace(/\s*\[emulator:[^\]]*\]/g, '')}`;
      return { state: 'failed', healthy: false, error: 'ImagePullFailed', message };
    }
    if (now < w.startedAt + t.pullMs + t.startMs) return { state: 'starting', healthy: false };
    return { state: 'running', healthy: !t.neverHealthy };
  }

  /** The current version ran healthy at this time: the older workers stop then. */
  private readyAt(e: Endpoint): number | undefined {
    const t = this.timing(e);
    return t.pullFail || t.neverHealthy ? undefined : e.rolledAt + t.pullMs + t.startMs;
  }

  /** Applies what the clock has brought (old workers stopped after a roll) and charges what ran since last time. */
  private settle(e: Endpoint, now: number): void {
    const ready = this.readyAt(e);
    if (ready !== undefined && now >= ready) {
      for (const w of e.workers) if (w.version < e.version && w.stoppedAt === undefined) w.stoppedAt = ready;
    }
    const billedMs = this.billedMs(e, now);
    const price = this.workerHourPrice(e);
    const due = Math.floor(((billedMs - e.chargedMs) * price) / 3_600_000);
    if (due < 1) return;
    // Only whole units are posted; the remainder waits for the next settle.
    e.chargedMs += Math.floor((due * 3_600_000) / price);
    const productId = e.config.products[0].id;
    this.accounts.charge({
      caller: e.caller,
      productId,
      productName: `serverless ${productId}`,
      category: 'serverless',
      amount: due,
      usage: { billNum0: String(Math.round(billedMs / 1000)) },
    });
  }

  /** Worker-ms billed: from the end of its pull until it stops; a worker whose pull failed never bills. */
  private billedMs(e: Endpoint, now: number): number {
    let ms = 0;
    for (const { t, startedAt, stoppedAt } of e.workers) {
      if (t.pullFail) continue;
      const from = startedAt + t.pullMs;
      const to = Math.min(now, stoppedAt ?? now);
      ms += Math.max(0, to - from);
    }
    return ms;
  }

  workerHourPrice(e: { config: EndpointConfig }): number {
    const product = PRODUCTS.find((p) => p.id === e.config.products[0].id);
    const perCard = (product?.pricing as { postpaid?: { final_price?: number } } | undefined)?.postpaid?.final_price;
    return (perCard ?? 0) * e.config.workerConfig.gpuNum;
  }

  private live(now: number): Endpoint[] {
    return [...this.byId.values()].filter(
      (e) => e.deletedAt === undefined || now < e.deletedAt + this.settings.deleteMs,
    );
  }

  private startWorkers(e: Endpoint, n: number, now: number): void {
    const t = this.timing(e);
    for (let i = 0; i < n; i++) e.workers.push({ id: `${e.id}-w${++this.seq}`, version: e.version, t, startedAt: now });
  }

  /** A refusal naming the field and the rule, or undefined when the config may be created or applied. */
  problems(config: EndpointConfig, replacing?: Endpoint): ValidationIssue[] {
    const product = PRODUCTS.find((p) => p.id === config.products[0].id);
    if (!product || product.category !== 'serverless' || product.type !== 'gpu') {
      return [{ field: 'products.0.id', rule: `no serverless GPU product "${config.products[0].id}"` }];
    }
    const now = this.clock.now();
    const others = this.live(now).filter((e) => e !== replacing && e.deletedAt === undefined);
    if (!replacing && others.some((e) => e.config.name === config.name)) {
      return [{ field: 'name', rule: `an endpoint named "${config.name}" already exists` }];
    }
    if (!replacing && others.length >= this.settings.maxEndpoints) {
      return [{ field: 'name', rule: `the account's quota of ${this.settings.maxEndpoints} endpoints is used` }];
    }
    const workers = others.reduce((n, e) => n + e.config.workerConfig.minNum, 0) + config.workerConfig.minNum;
    if (workers > this.settings.maxWorkers) {
      return [
        { field: 'workerConfig.minNum', rule: `over the account's quota of ${this.settings.maxWorkers} workers` },
      ];
    }
    return [];
  }

  create(config: EndpointConfig, caller: Caller): { id: string } {
    const now = this.clock.now();
    const e: Endpoint = {
      id: `ep-${(++this.seq).toString(36)}${now.toString(36)}`,
      caller,
      config,
      version: 1,
      rolledAt: now,
      workers: [],
      chargedMs: 0,
    };
    this.startWorkers(e, config.workerConfig.minNum, now);
    this.byId.set(e.id, e);
    return { id: e.id };
  }

  /** The endpoint while the platform still shows it (terminating included). */
  find(id: string): Endpoint | undefined {
    const e = this.byId.get(id);
    return e && this.live(this.clock.now()).includes(e) ? e : undefined;
  }

  update(e: Endpoint, config: EndpointConfig): void {
    const now = this.clock.now();
    this.settle(e, now);
    e.config = config;
    e.version++;
    e.rolledAt = now;
    // Workers of a version that never served stop now: only the last version that ran stays until the roll ends.
    for (const w of e.workers) if (this.phase(w, now).state === 'failed') w.stoppedAt ??= now;
    this.startWorkers(e, config.workerConfig.minNum, now);
    if (config.workerConfig.minNum === 0) for (const w of e.workers) w.stoppedAt ??= now;
  }

  delete(e: Endpoint): void {
    const now = this.clock.now();
    this.settle(e, now);
    e.deletedAt = now;
    for (const w of e.workers) w.stoppedAt ??= now;
  }

  /** The endpoint as the platform shows it; some numbers as strings, as the live platform sends them. */
  view(e: Endpoint): Record<string, unknown> {
    const now = this.clock.now();
    this.settle(e, now);
    const workers = e.workers
      .filter((w) => w.stoppedAt === undefined || now < w.stoppedAt)
      .map((w) => ({ w, p: this.phase(w, now) }));
    const current = workers.filter(({ w }) => w.version === e.version);
    const failed = current.find(({ p }) => p.state === 'failed')?.p;
    const healthy = current.filter(({ p }) => p.healthy).length;
    const c = e.config;
    let state: { state: string; error?: string; message?: string };
    if (e.deletedAt !== undefined) state = { state: 'terminating' };
    else if (failed) state = { state: 'failed', error: failed.error, message: failed.message };
    else if (healthy >= c.workerConfig.minNum && workers.length === current.length) state = { state: 'serving' };
    else state = { state: e.version > 1 ? 'updating' : 'initializing' };
    const appName = c.appName ?? e.id;
    return {
      ...c,
      id: e.id,
      appName,
      state: { error: '', message: '', ...state },
      url: `https://${appName}.serverless.emulator.local`,
      workerConfig: {
        ...c.workerConfig,
        freeTimeout: String(c.workerConfig.freeTimeout),
        maxConcurrent: String(c.workerConfig.maxConcurrent),
      },
      policy: { ...c.policy, value: String(c.policy.value) },
      ports: c.ports.map((p) => ({ port: String(p.port) })),
      healthy: { ...c.healthy, initialDelay: 0, period: 10, timeout: 5, successThreshold: 1, failureThreshold: 3 },
      workers: workers.map(({ w, p }) => ({
        id: w.id,
        state: { state: p.state, error: p.error ?? '', message: p.message ?? '' },
        healthy: p.healthy,
        log: '',
        metrics: {},
      })),
      log: '',
    };
  }

  /** pageNum counts from 1. */
  page(pageSize: number, pageNum: number): { endpoints: Record<string, unknown>[]; total: number } {
    const all = this.live(this.clock.now());
    const slice = all.slice((pageNum - 1) * pageSize, pageNum * pageSize);
    return { endpoints: slice.map((e) => this.view(e)), total: all.length };
  }

  /** The admin view: every endpoint since the last reset, gone ones too, with what it billed. */
  adminView(): EndpointAdminView[] {
    const now = this.clock.now();
    return [...this.byId.values()].map((e) => {
      this.settle(e, now);
      const gone = e.deletedAt !== undefined && now >= e.deletedAt + this.settings.deleteMs;
      const billing = e.workers.filter((w) => {
        const p = this.phase(w, now);
        return p.state === 'running' || p.state === 'starting';
      }).length;
      const billedMs = this.billedMs(e, now);
      return {
        id: e.id,
        name: e.config.name,
        state: gone ? 'gone' : String((this.view(e).state as { state: string }).state),
        image: e.config.image.image,
        billingNow: billing,
        billedWorkerSeconds: Math.round(billedMs / 100) / 10,
        cost: Math.floor((billedMs * this.workerHourPrice(e)) / 3_600_000),
      };
    });
  }
}
