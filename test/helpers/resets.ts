// What the reset tests share: an operator's reset as the Web UI sends it, the points a run is reset to,
// the history reads they wait on, and the emulator's count of paid calls per subject.
import { randomUUID } from 'node:crypto';
import Long from 'long';
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { quotaTaskQueue, WorkflowType } from '@platform-ops/client';
import { uniqueId, type TemporalTestContext } from './temporal';
import type { TestEmulator } from './emulator';
import { testEnv } from '../setup/shared';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type Point = 'first task' | 'task after the paid call' | 'last task';

interface Counters {
  paid: { byRoute: Record<string, Record<string, number>> };
  requests: Record<string, number>;
}

/** Requests of `route` that reached the platform (counted on arrival, before any latency). */
export async function arrived(emulator: TestEmulator, route: string): Promise<number> {
  return (await emulator.admin<Counters>('GET', '/counters')).requests[route] ?? 0;
}

/** How many times the platform carried out a paid call of `route` whose subject contains `marker` (since start). */
export async function paidCalls(emulator: TestEmulator, route: string, marker: string): Promise<number> {
  const { paid } = await emulator.admin<Counters>('GET', '/counters');
  return Object.entries(paid.byRoute[route] ?? {})
    .filter(([subject]) => subject.includes(marker))
    .reduce((sum, [, n]) => sum + n, 0);
}

export const events = async (handle: WorkflowHandle): Promise<HistoryEvent[]> =>
  (await handle.fetchHistory()).events ?? [];

export const scheduled = (all: HistoryEvent[], type: string) =>
  all.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type);

export const completedOf = (all: HistoryEvent[], type: string) => {
  const sched = Number(scheduled(all, type)?.eventId);
  return all.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === sched);
};

/** Waits until the run's history holds an event that `found` picks. */
export async function waitFor(handle: WorkflowHandle, found: (all: HistoryEvent[]) => boolean, what: string) {
  for (let i = 0; i < 600; i++) {
    if (found(await events(handle))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function resetPoint(all: HistoryEvent[], point: Point, paidType: string): number {
  const tasks = all.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => Number(e.eventId));
  if (point === 'first task') return tasks[0];
  if (point === 'last task') return tasks[tasks.length - 1];
  const sched = Number(scheduled(all, paidType)?.eventId);
  const closed = all.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === sched);
  return tasks.find((t) => t > Number(closed?.eventId))!;
}

/** Resets the run to the end of workflow task `eventId`, as the Web UI does; returns the new run's handle. */
export async function reset(client: Client, handle: WorkflowHandle, eventId: number): Promise<WorkflowHandle> {
  const { runId } = await client.workflowService.resetWorkflowExecution({
    namespace: testEnv('temporalNamespace'),
    workflowExecution: { workflowId: handle.workflowId, runId: (await handle.describe()).runId },
    workflowTaskFinishEventId: Long.fromNumber(eventId),
    reason: 'test: reset',
    requestId: randomUUID(),
  });
  return client.workflow.getHandle(handle.workflowId, runId ?? undefined);
}

/**
 * Sets an operator's rate limit on an operation's quota queue (the workers leave such a limit alone): a
 * tiny one holds every submit there, unsent; a large one lets them go.
 */
export async function limitQuotaQueue(
  client: Client,
  taskQueue: string,
  operation: string,
  requestsPerSecond: number,
): Promise<void> {
  await client.workflowService.updateTaskQueueConfig({
    namespace: client.options.namespace,
    identity: 'resets test',
    taskQueue: quotaTaskQueue(taskQueue, operation),
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    updateQueueRateLimit: { rateLimit: { requestsPerSecond }, reason: 'resets test: hold the queue' },
  });
}

/** A budget-gated generation of `memberId` (6,000 reserved), its prompt carrying the paid-call marker. */
export function startBudgetGatedGeneration(
  ctx: TemporalTestContext,
  memberId: string,
  prompt: string,
  idPrefix: string,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return ctx.client.workflow.start(WorkflowType.budgetGatedJob, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId(idPrefix),
    args: [
      {
        memberId,
        cost: 6_000,
        job: {
          workflowType: 'mediaGeneration',
          input: {
            operation: 'text-to-video',
            request: { prompt },
            polling: { minIntervalMs: 100, maxIntervalMs: 400 },
          },
        },
      },
    ],
  });
}
