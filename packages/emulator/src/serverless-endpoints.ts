// Serverless endpoints: each worker's phases (pulling, starting, running) are derived from its start time on the
// emulated clock, like instances and tasks. The emulator has no traffic, so an endpoint runs exactly its minimum of
// workers. An update rolls: the new config's workers start, and the old ones stop once those run healthy. Workers
// bill per second from the end of their pull until they stop, at the product's postpaid price per card-hour; what
// accrued is posted to the caller's member before each request is handled (settleAll), so every read of a budget or
// a bill includes it (docs/emulator.md).
import type { EndpointConfig, ValidationIssue } from '@platform-ops/client';
import type { EmulatorClock } from './clock';
import type { Accounts } from './accounts';
import type { EndpointSettings } from './fixtures';
import { serverlessProduct } from './pricing';
import { type EndpointMarkers, imageName, parseEndpointMarkers } from './serverless-markers';
import type { Caller } from './types';

type Timing = EndpointMarkers & { pendingMs: number; pullMs: number; startMs: number };

interface Worker {
  id: string;
  version: number;
  /** Its image's markers and phase lengths, fixed when it started. */
  t: Timing;
  /** 1/10000 USD per hour: the product's price per card times the config's GPUs, fixed when it started. */
  hourPrice: number;
  gpuNum: number;
  startedAt: number;
  stoppedAt?: number;
}

interface Endpoint {
  id: string;
  caller: Caller;
  config: EndpointConfig;
  version: number;
  /** It served when the current roll began: its old workers keep it serving until the new ones take over. */
  servedBeforeRoll: boolean;
  workers: Worker[];
  deletedAt?: number;
  /** What was posted to the member: 1/10000 USD, and the usage seconds of the bill lines. */
  charged: number;
  postedWorkerSeconds: number;
  postedGpuSeconds: number;
}

/** One endpoint in the admin view (GET /_emulator/endpoints). */
export interface EndpointAdminView {
  id: string;
  name: string;
  /** The platform's state, or `gone` once deleted and past `deleteMs`. */
  state: string;
  image: string;
  /** Workers starting or running now. */
  billingNow: number;
  billedWorkerSeconds: number;
  /** 1/10000 USD the workers billed so far; the member was charged it, less a fraction of a unit. */
  cost: number;
}

type WorkerPhase = { state: string; healthy: boolean; error?: string; message?: string };
type EndpointState = { state: string; error?: string; message?: string };
/** A create or update refused: the field (relative to the config) and the rule. */
export type EndpointProblem = ValidationIssue & { quota?: true };

const HOUR_MS = 3_600_000;

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
    const m = parseEndpointMarkers(e.config.image.image).markers;
    const s = this.settings;
    return { ...m, pendingMs: s.pendingMs, pullMs: m.pullMs ?? s.pullMs, startMs: m.startMs ?? s.startMs };
  }

  private phase(w: Worker, now: number): WorkerPhase {
    const { t } = w;
    const pulled = w.startedAt + t.pendingMs + t.pullMs;
    if (w.stoppedAt !== undefined && now >= w.stoppedAt) return { state: 'stopped', healthy: false };
    if (now < w.startedAt + t.pendingMs) return { state: 'pending', healthy: false };
    if (now < pulled) return { state: 'pulling', healthy: false };
    if (t.pullFail) {
      const message = `cannot pull image ${imageName(t.image)}: not found or not authorized`;
      return { state: 'failed', healthy: false, error: 'ImagePullFailed', message };
    }
    if (now < pulled + t.startMs) return { state: 'starting', healthy: false };
    return { state: 'running', healthy: !t.neverHealthy };
  }

  /** When the current version's workers run healthy (they start together): the older workers stop then. */
  private readyAt(e: Endpoint): number | undefined {
    const w = e.workers.find((worker) => worker.version === e.version);
    if (!w || w.t.pullFail || w.t.neverHealthy) return undefined;
    return w.startedAt + w.t.pendingMs + w.t.pullMs + w.t.startMs;
  }

  /** Applies what the clock has brought (old workers stopped after a roll) and charges what accrued since. */
  private settle(e: Endpoint, now: number): void {
    const ready = this.readyAt(e);
    if (ready !== undefined && now >= ready) {
      for (const w of e.workers) if (w.version < e.version && w.stoppedAt === undefined) w.stoppedAt = ready;
    }
    const { cost, ms, gpuMs } = this.accrued(e, now);
    // Only whole units are posted; the fraction waits for the next settle.
    const due = Math.floor(cost - e.charged);
    if (due < 1) return;
    const workerSeconds = Math.round(ms / 1000);
    const gpuSeconds = Math.round(gpuMs / 1000);
    const productId = e.config.products[0].id;
    this.accounts.charge({
      caller: e.caller,
      productId,
      productName: `serverless ${productId}`,
      category: 'serverless',
      amount: due,
      // billNum0 worker-seconds, billNum1 GPU-seconds, each charge the seconds since the previous one.
      usage: {
        billNum0: String(workerSeconds - e.postedWorkerSeconds),
        billNum1: String(gpuSeconds - e.postedGpuSeconds),
      },
    });
    e.charged += due;
    e.postedWorkerSeconds = workerSeconds;
    e.postedGpuSeconds = gpuSeconds;
  }

  /** Every endpoint's charges posted up to now; the server calls it before each request. */
  settleAll(): void {
    const now = this.clock.now();
    for (const e of this.byId.values()) this.settle(e, now);
  }

  /**
   * What the workers billed by now: each from the end of its pull until it stops (a worker whose pull failed never
   * bills), in worker-ms, GPU-ms and 1/10000 USD (with its fraction).
   */
  private accrued(e: Endpoint, now: number): { ms: number; gpuMs: number; cost: number } {
    const sum = { ms: 0, gpuMs: 0, cost: 0 };
    for (const w of e.workers) {
      if (w.t.pullFail) continue;
      const ms = Math.max(0, Math.min(now, w.stoppedAt ?? now) - (w.startedAt + w.t.pendingMs + w.t.pullMs));
      sum.ms += ms;
      sum.gpuMs += ms * w.gpuNum;
      sum.cost += (ms * w.hourPrice) / HOUR_MS;
    }
    return sum;
  }

  private live(now: number): Endpoint[] {
    return [...this.byId.values()].filter(
      (e) => e.deletedAt === undefined || now < e.deletedAt + this.settings.deleteMs,
    );
  }

  private startWorkers(e: Endpoint, n: number, now: number): void {
    const t = this.timing(e);
    const { gpuNum } = e.config.workerConfig;
    const hourPrice = (serverlessProduct(e.config.products[0].id)?.perCardHour ?? 0) * gpuNum;
    for (let i = 0; i < n; i++) {
      e.workers.push({ id: `${e.id}-w${++this.seq}`, version: e.version, t, hourPrice, gpuNum, startedAt: now });
    }
  }

  /** Why `config` may not be created, or applied to `replacing`; empty when it may. */
  problems(config: EndpointConfig, replacing?: Endpoint): EndpointProblem[] {
    const productId = config.products[0].id;
    if (!serverlessProduct(productId)) {
      return [
        { field: 'products.0.id', rule: `must name a serverless GPU product of the catalog; "${productId}" is none` },
      ];
    }
    const now = this.clock.now();
    const others = this.live(now).filter((e) => e !== replacing && e.deletedAt === undefined);
    if (others.some((e) => e.config.name === config.name)) {
      return [{ field: 'name', rule: `is taken: an endpoint named "${config.name}" already exists` }];
    }
    const { maxEndpoints, maxWorkers } = this.settings;
    if (!replacing && others.length >= maxEndpoints) {
      return [{ field: '', rule: `the account's quota of ${maxEndpoints} endpoints is used up`, quota: true }];
    }
    const workers = others.reduce((n, e) => n + e.config.workerConfig.minNum, 0) + config.workerConfig.minNum;
    if (workers > maxWorkers) {
      const rule = `would bring the account's workers to ${workers}, over its quota of ${maxWorkers}`;
      return [{ field: 'workerConfig.minNum', rule, quota: true }];
    }
    return [];
  }

  create(config: EndpointConfig, caller: Caller): { id: string } {
    const now = this.clock.now();
    const e: Endpoint = {
      id: `ep-${Math.floor(now).toString(36)}-${(++this.seq).toString(36)}`,
      caller,
      config,
      version: 1,
      servedBeforeRoll: false,
      workers: [],
      charged: 0,
      postedWorkerSeconds: 0,
      postedGpuSeconds: 0,
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

  /** Its URL's name: the one given at create, else its id. */
  appName(e: Endpoint): string {
    return e.config.appName ?? e.id;
  }

  update(e: Endpoint, config: EndpointConfig): void {
    const now = this.clock.now();
    this.settle(e, now);
    // Serving now, or some worker still answering: the endpoint serves on while the new workers come up.
    const before = this.snapshot(e, now);
    e.servedBeforeRoll = before.state.state === 'serving' || before.workers.some(({ p }) => p.healthy);
    e.config = config;
    e.version++;
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

  /** Its live workers with their phases, and the endpoint's state they make. */
  private snapshot(e: Endpoint, now: number): { workers: { w: Worker; p: WorkerPhase }[]; state: EndpointState } {
    this.settle(e, now);
    const workers = e.workers
      .filter((w) => w.stoppedAt === undefined || now < w.stoppedAt)
      .map((w) => ({ w, p: this.phase(w, now) }));
    const current = workers.filter(({ w }) => w.version === e.version);
    const failed = current.find(({ p }) => p.state === 'failed')?.p;
    const healthy = current.filter(({ p }) => p.healthy).length;
    let state: EndpointState;
    if (e.deletedAt !== undefined) state = { state: 'terminating' };
    else if (failed) state = { state: 'failed', error: failed.error, message: failed.message };
    else if (healthy >= e.config.workerConfig.minNum && workers.length === current.length) state = { state: 'serving' };
    else state = { state: e.servedBeforeRoll ? 'serving' : 'initializing' };
    return { workers, state };
  }

  /** The endpoint as the platform shows it; some numbers as strings, as the live platform sends them. */
  view(e: Endpoint): Record<string, unknown> {
    const { workers, state } = this.snapshot(e, this.clock.now());
    const c = e.config;
    const appName = this.appName(e);
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
      clusterID: c.clusterID ?? '',
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
      const { state } = this.snapshot(e, now);
      const gone = e.deletedAt !== undefined && now >= e.deletedAt + this.settings.deleteMs;
      const billing = e.workers.filter((w) => ['starting', 'running'].includes(this.phase(w, now).state)).length;
      const { ms, cost } = this.accrued(e, now);
      return {
        id: e.id,
        name: e.config.name,
        state: gone ? 'gone' : state.state,
        image: e.config.image.image,
        billingNow: billing,
        billedWorkerSeconds: Math.round(ms / 100) / 10,
        cost: Math.floor(cost),
      };
    });
  }
}
