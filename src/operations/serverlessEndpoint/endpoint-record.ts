// What a serverlessEndpoint run knows of its endpoint, and the worker-seconds it has seen billed. No Temporal
// imports: the workflow is wiring, this is tested without a server.
import type { EndpointConfig, EndpointReservation, EndpointView } from '@platform-ops/client';
import type { EndpointSnapshot } from './activities';

export interface Carried {
  endpointId?: string;
  servedConfig?: EndpointConfig;
  view?: EndpointView;
  observedAt?: number;
}

export class EndpointRecord {
  view: EndpointView;
  endpointId?: string;
  /** The last config that served with its minimum of healthy workers: where a failed update goes back to. */
  servedConfig?: EndpointConfig;
  private observedAt?: number;

  constructor(name: string, carried: Carried = {}) {
    this.endpointId = carried.endpointId;
    this.servedConfig = carried.servedConfig;
    this.observedAt = carried.observedAt;
    this.view = carried.view ?? {
      name,
      status: 'NOT_DEPLOYED',
      workers: { running: 0, healthy: 0, total: 0 },
      workerSeconds: 0,
      costSoFar: 0,
      changesApplied: 0,
    };
  }

  /**
   * The workers seen running at the last observation are taken to have run until this one: an estimate between
   * observations (the platform's bills are the record), which the refresh interval bounds.
   */
  observe(snapshot: EndpointSnapshot, at: number): void {
    const seconds = this.observedAt === undefined ? 0 : Math.max(0, at - this.observedAt) / 1000;
    const workerSeconds = this.view.workerSeconds + seconds * this.view.workers.running;
    this.observedAt = at;
    if (snapshot.gone) this.endpointId = undefined;
    const { platformState, reason, url, workers } = snapshot;
    this.view = {
      ...this.view,
      endpointId: this.endpointId,
      platformState,
      reason,
      url: snapshot.gone ? undefined : (url ?? this.view.url),
      workers,
      workerSeconds: Math.round(workerSeconds * 10) / 10,
      costSoFar: Math.round((workerSeconds * (this.view.workerHourPrice ?? 0)) / 3600),
    };
  }

  /** The config the endpoint now runs (or is being taken to). */
  configured(config: EndpointConfig, workerHourPrice?: number): void {
    const { minNum, maxNum } = config.workerConfig;
    this.view = { ...this.view, minWorkers: minNum, maxWorkers: maxNum, workerHourPrice };
  }

  served(config: EndpointConfig): void {
    this.servedConfig = config;
  }

  /** What the member's budget holds for the endpoint now. */
  hold(reservation: EndpointReservation | undefined): void {
    this.view = { ...this.view, reservation };
  }

  removed(): void {
    this.endpointId = undefined;
    this.servedConfig = undefined;
    this.view = {
      ...this.view,
      endpointId: undefined,
      url: undefined,
      minWorkers: undefined,
      maxWorkers: undefined,
      reservation: undefined,
    };
  }

  changed(kind: string, outcome: 'applied' | 'failed' | 'rolledBack', message?: string): void {
    const changesApplied = this.view.changesApplied + (outcome === 'applied' ? 1 : 0);
    this.view = { ...this.view, changesApplied, lastChange: { kind, outcome, ...(message && { message }) } };
  }

  setStatus(status: string): void {
    this.view = { ...this.view, status };
  }

  carried(): Carried {
    return {
      endpointId: this.endpointId,
      servedConfig: this.servedConfig,
      view: this.view,
      observedAt: this.observedAt,
    };
  }
}

/** Since when workers have run without all turning healthy: they bill, so a deploy gives up on them after a bound. */
export class UnhealthyWatch {
  private since?: number;

  constructor(readonly boundMs: number) {}

  /** Sees one reading; true once workers have been running unhealthy for the whole bound. */
  see(snapshot: EndpointSnapshot, at: number): boolean {
    const { running, healthy } = snapshot.workers;
    if (running > healthy) this.since ??= at;
    else this.since = undefined;
    return this.since !== undefined && at - this.since >= this.boundMs;
  }

  /** When the bound runs out, while workers are unhealthy. */
  get dueAt(): number | undefined {
    return this.since === undefined ? undefined : this.since + this.boundMs;
  }
}
