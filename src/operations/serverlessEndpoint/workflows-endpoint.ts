// The steps of a serverlessEndpoint run: one change at a time, each waited out on the platform, a failed update
// taken back to the config that last served.
import { ApplicationFailure, condition, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import {
  DeployEndpointRequest,
  type EndpointChangeResult,
  type EndpointConfig,
  type EndpointBudget,
  FailureType,
  FIXED_ON_UPDATE,
  type ParsedServerlessEndpointInput,
  type ServerlessEndpointStatus,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities, EndpointCheckpoint, EndpointSnapshot } from './activities';
import { EndpointRecord, UnhealthyWatch } from './endpoint-record';
import { releaseReservation, reserveForDeploy } from './workflows-budget';
import { paidCall, summarized, WAITING } from '../../workflows/activity-summary';
import { forUpTo, pollTimedOut, retryAsPollOptions } from '../../workflows/retry-policies';
import { trackStatus, type StatusTracker } from '../../workflows/status';

type Kind = EndpointChangeResult['kind'];
type Budget = z.output<typeof EndpointBudget>;

// Reads and free calls keep trying through an outage for as long as a change may wait to serve.
const CALL_MS = 30 * 60_000;
const platform = proxyActivities<Activities>(forUpTo(CALL_MS));

// 1.2: the wait to serve reports what the platform shows every REPORT_MS (endpoint id, workers, cost so far, for
// the query and the Web UI), and gives up on workers that run without turning healthy for the deploy's bound.
const WAIT_REPORTS_UNHEALTHY = 'endpoint-wait-reports-unhealthy';
const REPORT_MS = 30_000;
const DEFAULT_UNHEALTHY_S: number = DeployEndpointRequest.shape.unhealthyTimeoutSeconds.parse(undefined);

type WaitOutcome = Exclude<EndpointCheckpoint['outcome'], 'pending'> | 'unhealthy';

const rejected = (message: string, type: string = FailureType.InvalidInput, details?: unknown) =>
  ApplicationFailure.create({
    type,
    nonRetryable: true,
    message,
    ...(details !== undefined && { details: [details] }),
  });

export class EndpointRun {
  readonly record: EndpointRecord;
  readonly status: StatusTracker<ServerlessEndpointStatus>;
  private queued = 0;
  private changes = 0;
  private applied = 0;
  /** The last deploy's bound on unhealthy workers; scales and rollbacks keep it. */
  private unhealthyMs = DEFAULT_UNHEALTHY_S * 1000;

  constructor(readonly input: ParsedServerlessEndpointInput) {
    this.record = new EndpointRecord(input.name, input.carried);
    const initial = (input.carried?.view?.status ?? 'NOT_DEPLOYED') as ServerlessEndpointStatus;
    this.status = trackStatus<ServerlessEndpointStatus>(WorkflowType.serverlessEndpoint, initial);
  }

  /** A change is applied or waiting its turn. */
  get busy(): boolean {
    return this.queued > this.applied;
  }

  get removed(): boolean {
    return this.record.endpointId === undefined && this.record.view.status === 'REMOVED';
  }

  /** Changes run in the order they were accepted, never interleaved. */
  async inTurn<T>(change: () => Promise<T>): Promise<T> {
    const turn = this.queued++;
    await condition(() => this.applied === turn);
    try {
      return await change();
    } finally {
      this.applied++;
    }
  }

  private set(status: ServerlessEndpointStatus): void {
    this.record.setStatus(status);
    const { platformState, workers, costSoFar } = this.record.view;
    this.status.set(status, { platformState, healthy: workers.healthy, running: workers.running, costSoFar });
  }

  private observe(snapshot: EndpointSnapshot): void {
    this.record.observe(snapshot, Date.now());
  }

  async deploy(
    config: EndpointConfig,
    budget?: z.output<typeof EndpointBudget>,
    unhealthyTimeoutSeconds = DEFAULT_UNHEALTHY_S,
  ): Promise<EndpointChangeResult> {
    if (config.name !== this.input.name) {
      throw rejected(`config.name must be "${this.input.name}", the endpoint this run owns, not "${config.name}"`);
    }
    this.unhealthyMs = unhealthyTimeoutSeconds * 1000;
    return this.apply('deploy', config, budget);
  }

  async scale(minWorkers: number, maxWorkers: number): Promise<EndpointChangeResult> {
    const served = this.record.servedConfig;
    if (!this.record.endpointId || !served)
      throw rejected(`endpoint ${this.input.name} is not deployed: deploy it first`);
    return this.apply('scale', {
      ...served,
      workerConfig: { ...served.workerConfig, minNum: minWorkers, maxNum: maxWorkers },
    });
  }

  /** Checked before anything is sent; then created (paid, found again by name) or updated, and waited out. */
  private async apply(kind: Kind, config: EndpointConfig, budget?: Budget): Promise<EndpointChangeResult> {
    this.changes++;
    this.set('CHECKING');
    const check = await summarized(platform.checkEndpointConfig, `check ${kind} of endpoint ${config.name}`)(config);
    if (check.problems.length > 0) {
      this.set(this.record.servedConfig ? 'SERVING' : 'NOT_DEPLOYED');
      throw rejected(`Invalid endpoint config: ${check.problems.join('; ')}`);
    }
    this.record.configured(config, check.workerHourPrice);
    const id = `${this.input.name}:${workflowInfo().runId.slice(0, 8)}:${this.changes}`;
    const reserved = budget && (await reserveForDeploy(budget, config.workerConfig.minNum, check.workerHourPrice, id));
    try {
      const result = await this.send(kind, config);
      if (reserved) {
        await releaseReservation(this.record.view.reservation, `endpoint ${this.input.name} deployed again`);
        this.record.hold(reserved);
      }
      return result;
    } catch (err) {
      await releaseReservation(reserved, `the ${kind} of endpoint ${this.input.name} failed`);
      throw err;
    }
  }

  private async send(kind: Kind, config: EndpointConfig): Promise<EndpointChangeResult> {
    if (!this.record.endpointId) {
      const found = await summarized(platform.findEndpoint, `find endpoint ${config.name}`)(config.name);
      this.record.endpointId = found?.endpointId;
    }
    let alreadyApplied = false;
    let created = false;
    if (!this.record.endpointId) {
      this.set('CREATING');
      const made = await paidCall(platform.createEndpoint, `create endpoint ${config.name}`)({ config });
      ({ alreadyApplied } = made);
      created = !alreadyApplied;
      this.record.endpointId = made.endpointId;
    } else {
      const served = this.record.servedConfig;
      const fixed = served && FIXED_ON_UPDATE.find((f) => JSON.stringify(served[f]) !== JSON.stringify(config[f]));
      if (fixed) throw rejected(`config.${fixed} cannot change on an update (it is ${JSON.stringify(served[fixed])})`);
      this.set('UPDATING');
      await this.update(config);
    }
    const { outcome, snapshot } = await this.waitFor('serving', config.workerConfig.minNum);
    if (outcome === 'reached') {
      this.record.served(config);
      this.record.changed(kind, 'applied');
      this.set('SERVING');
      const { endpointId, url, workers } = this.record.view;
      return { kind, endpointId, url, platformState: snapshot.platformState, workers, alreadyApplied };
    }
    return this.failed(kind, config, outcome, snapshot, created);
  }

  /** A failed update goes back to the config that served; a new endpoint that never served is removed. */
  private async failed(
    kind: Kind,
    config: EndpointConfig,
    outcome: Exclude<WaitOutcome, 'reached'>,
    snapshot: EndpointSnapshot,
    created: boolean,
  ): Promise<never> {
    const minNum = config.workerConfig.minNum;
    const seconds = this.input.serveTimeoutSeconds;
    const { platformState, workers } = snapshot;
    const reason =
      outcome === 'timedOut'
        ? `not serving with ${minNum} healthy workers after ${seconds}s (${platformState}, ${workers.healthy} healthy)`
        : outcome === 'unhealthy'
          ? `workers ran without turning healthy for ${this.unhealthyMs / 1000}s: the platform shows the endpoint ` +
            `${platformState}, ${workers.running} running, ${workers.healthy} healthy` +
            (snapshot.reason ? ` (${snapshot.reason})` : '')
          : (snapshot.reason ?? `the platform's state is ${platformState}`);
    const served = this.record.servedConfig;
    let after: string;
    if (served && this.record.endpointId) {
      this.set('ROLLING_BACK');
      this.record.configured(served, this.record.view.workerHourPrice);
      await this.update(served);
      const back = await this.waitFor('serving', served.workerConfig.minNum);
      this.record.changed(kind, 'rolledBack', reason);
      this.set(back.outcome === 'reached' ? 'SERVING' : 'FAILED');
      after = back.outcome === 'reached' ? 'rolled back to the last config that served' : 'the rollback did not serve';
    } else if (created) {
      await this.removeEndpoint();
      this.record.changed(kind, 'failed', reason);
      this.set('FAILED');
      after = 'the endpoint was removed, so no worker bills';
    } else {
      this.record.changed(kind, 'failed', reason);
      this.set('FAILED');
      after = 'the endpoint is left as the platform shows it';
    }
    const type = outcome === 'unhealthy' ? FailureType.EndpointUnhealthy : FailureType.PlatformRejected;
    throw rejected(`${kind} of endpoint ${config.name} failed: ${reason}; ${after}`, type, {
      reason,
      rolledBack: after.startsWith('rolled back'),
    });
  }

  async remove(): Promise<EndpointChangeResult> {
    if (!this.record.endpointId) {
      const found = await summarized(platform.findEndpoint, `find endpoint ${this.input.name}`)(this.input.name);
      this.record.endpointId = found?.endpointId;
    }
    const alreadyApplied = !this.record.endpointId;
    if (this.record.endpointId) await this.removeEndpoint();
    await releaseReservation(this.record.view.reservation, `endpoint ${this.input.name} removed`);
    this.record.removed();
    this.record.changed('remove', 'applied');
    this.set('REMOVED');
    return { kind: 'remove', workers: this.record.view.workers, alreadyApplied };
  }

  private async removeEndpoint(): Promise<void> {
    const endpointId = this.record.endpointId!;
    this.set('REMOVING');
    await summarized(platform.deleteEndpoint, `delete endpoint ${endpointId}`)(endpointId);
    const { outcome } = await this.waitFor('gone', 0);
    if (outcome !== 'reached') {
      throw rejected(
        `endpoint ${endpointId} was still listed ${this.input.removeTimeoutSeconds}s after its delete: remove it again`,
        FailureType.DeadlineExceeded,
      );
    }
  }

  private async update(config: EndpointConfig): Promise<void> {
    const endpointId = this.record.endpointId!;
    await summarized(platform.updateEndpoint, `update endpoint ${endpointId}`)({ endpointId, config });
  }

  /** Between changes: what the platform shows now (state, workers, and the worker-seconds since the last read). */
  async refresh(): Promise<void> {
    const endpointId = this.record.endpointId;
    if (!endpointId) return;
    this.observe(await this.readNow(endpointId));
    this.status.detail({ platformState: this.record.view.platformState, healthy: this.record.view.workers.healthy });
  }

  private async waitFor(
    target: 'serving' | 'gone',
    minWorkers: number,
  ): Promise<{ outcome: WaitOutcome; snapshot: EndpointSnapshot }> {
    const endpointId = this.record.endpointId!;
    const timeoutS = target === 'gone' ? this.input.removeTimeoutSeconds : this.input.serveTimeoutSeconds;
    const deadlineAt = Date.now() + timeoutS * 1000;
    if (target === 'serving') this.set('WAITING_TO_SERVE');
    if (target === 'serving' && patched(WAIT_REPORTS_UNHEALTHY)) return this.waitToServe(minWorkers, deadlineAt);
    const { pollEndpoint } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
    const intervalMs = this.input.pollSeconds * 1000;
    try {
      const summary = `endpoint ${endpointId} to be ${target}: ${WAITING}`;
      const checkpoint = await summarized(
        pollEndpoint,
        summary,
      )({ endpointId, target, minWorkers, deadlineAt, intervalMs });
      this.observe(checkpoint.snapshot);
      // Without reportAt, the wait never answers pending.
      return checkpoint as { outcome: WaitOutcome; snapshot: EndpointSnapshot };
    } catch (err) {
      if (!pollTimedOut(err)) throw err;
      const snapshot = await this.readNow(endpointId);
      this.observe(snapshot);
      return { outcome: 'timedOut' as const, snapshot };
    }
  }

  /** In reports REPORT_MS apart, each shown as it comes; workers that run unhealthy past the bound end the wait. */
  private async waitToServe(minWorkers: number, deadlineAt: number) {
    const endpointId = this.record.endpointId!;
    const unhealthy = new UnhealthyWatch(this.unhealthyMs);
    const summary = `endpoint ${endpointId} to be serving: ${WAITING}`;
    for (;;) {
      const { pollEndpoint } = proxyActivities<Activities>(retryAsPollOptions(deadlineAt - Date.now()));
      const reportAt = Math.min(Date.now() + REPORT_MS, unhealthy.dueAt ?? Infinity);
      let checkpoint: EndpointCheckpoint;
      try {
        checkpoint = await summarized(
          pollEndpoint,
          summary,
        )({
          endpointId,
          target: 'serving',
          minWorkers,
          deadlineAt,
          intervalMs: this.input.pollSeconds * 1000,
          reportAt,
        });
      } catch (err) {
        if (!pollTimedOut(err)) throw err;
        checkpoint = { outcome: 'timedOut', snapshot: await this.readNow(endpointId) };
      }
      const { snapshot } = checkpoint;
      this.observe(snapshot);
      this.showWorkers();
      if (checkpoint.outcome !== 'pending') return { outcome: checkpoint.outcome, snapshot };
      if (unhealthy.see(snapshot, Date.now())) return { outcome: 'unhealthy' as const, snapshot };
    }
  }

  private async readNow(endpointId: string): Promise<EndpointSnapshot> {
    return summarized(platform.readEndpoint, `read endpoint ${endpointId}`)(endpointId);
  }

  /** What bills while the endpoint comes up, in the query's answer and the Web UI's current details. */
  private showWorkers(): void {
    const { endpointId, platformState, workers, costSoFar } = this.record.view;
    this.status.detail({ endpointId, platformState, running: workers.running, healthy: workers.healthy, costSoFar });
  }
}
