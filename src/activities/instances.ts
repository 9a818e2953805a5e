// GPU instance activities: thin wrappers over the platform client.
import { Context, log } from '@temporalio/activity';
import type { PlatformClient } from '../platform/client';
import { PlatformError } from '../platform/errors';
import { sleepWithHeartbeats } from './heartbeat';

export interface InstanceSnapshot {
  id: string;
  status: string;
  endTime?: string | number;
  statusError?: { state?: string; message?: string } | null;
}

export interface RenewOnPlatformInput {
  instanceId: string;
  months: number;
  /** The expiry read before the first attempt: lets a retry see that the renewal already happened. */
  endTimeBefore?: string | number;
}

export interface WaitForInstanceStatusInput {
  instanceId: string;
  target: string;
  /** How long to wait. The deadline is fixed at the first attempt and kept across retries. */
  timeoutMs: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
}

export interface WaitForInstanceStatusResult {
  reached: boolean;
  statuses: string[];
  finalStatus: string;
  polls: number;
  waitedMs: number;
}

/** Heartbeat details: what a retried attempt resumes from. */
interface WaitProgress {
  statuses: string[];
  polls: number;
  startedMs: number;
  deadlineMs: number;
}

export function createInstanceActivities(platform: PlatformClient) {
  const signal = () => Context.current().cancellationSignal;

  return {
    async getInstance(instanceId: string): Promise<InstanceSnapshot> {
      const inst = await platform.getInstance({ instanceId }, { signal: signal() });
      // Only what the workflows use goes into history.
      return { id: inst.id, status: inst.status, endTime: inst.endTime, statusError: inst.statusError };
    },

    /**
     * Renewing costs money, so a retry must not renew twice: on a later attempt, an expiry that moved
     * since the workflow first read it means an earlier attempt reached the platform.
     */
    async renewInstance(input: RenewOnPlatformInput): Promise<{ alreadyApplied: boolean }> {
      const { attempt } = Context.current().info;
      if (attempt > 1 && input.endTimeBefore !== undefined) {
        const now = await platform.getInstance({ instanceId: input.instanceId }, { signal: signal() });
        if (String(now.endTime) !== String(input.endTimeBefore)) {
          log.info('Renewal already applied by an earlier attempt', { instanceId: input.instanceId, attempt });
          return { alreadyApplied: true };
        }
      }
      await platform.renewInstance({ instanceId: input.instanceId, months: input.months }, { signal: signal() });
      return { alreadyApplied: false };
    },

    async restartInstance(instanceId: string): Promise<void> {
      await platform.restartInstance({ instanceId }, { signal: signal() });
    },

    /**
     * Polls get-instance with backoff until `target` or the deadline, heartbeating its progress. One
     * long activity instead of a timer and an activity per poll keeps the workflow history constant.
     */
    async waitForInstanceStatus(input: WaitForInstanceStatusInput): Promise<WaitForInstanceStatusResult> {
      const ctx = Context.current();
      const resumed = ctx.info.heartbeatDetails as WaitProgress | undefined;
      const startedMs = resumed?.startedMs ?? Date.now();
      const progress: WaitProgress = {
        statuses: resumed?.statuses ?? [],
        polls: resumed?.polls ?? 0,
        startedMs,
        deadlineMs: resumed?.deadlineMs ?? startedMs + input.timeoutMs,
      };
      const result = (reached: boolean): WaitForInstanceStatusResult => ({
        reached,
        statuses: progress.statuses,
        finalStatus: progress.statuses[progress.statuses.length - 1] ?? 'unknown',
        polls: progress.polls,
        waitedMs: Date.now() - progress.startedMs,
      });
      let interval = input.initialIntervalMs;
      for (;;) {
        try {
          const inst = await platform.getInstance({ instanceId: input.instanceId }, { signal: ctx.cancellationSignal });
          progress.polls++;
          if (progress.statuses[progress.statuses.length - 1] !== inst.status) progress.statuses.push(inst.status);
          ctx.heartbeat(progress);
          if (inst.status === input.target) return result(true);
        } catch (err) {
          // A passing fault must not end a long wait; anything final does.
          if (!(err instanceof PlatformError) || !err.retryable) throw err;
          log.warn('get-instance failed, polling on', { instanceId: input.instanceId, error: err.message });
          ctx.heartbeat(progress);
          if (err.retryAfterMs) interval = Math.max(interval, err.retryAfterMs);
        }
        const remaining = progress.deadlineMs - Date.now();
        if (remaining <= 0) return result(false);
        await sleepWithHeartbeats(ctx, Math.min(interval, remaining), progress);
        interval = Math.min(interval * 2, input.maxIntervalMs);
      }
    },
  };
}
