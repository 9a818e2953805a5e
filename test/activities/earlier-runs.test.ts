// Unit: which call of an earlier run a reset run's paid call meets (earlierPaidCall), on histories built here
// and served by a stub of the Temporal client's history read, their payloads encrypted as the service writes them
// (src/codec); no server. The integration tests are
// test/workflows/resets.test.ts and test/workflows/reset-paths.test.ts.
import { randomBytes } from 'node:crypto';
import Long from 'long';
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { earlierPaidCall } from '../../src/activities/earlier-runs';
import { FailureType, Keyring, PayloadEncryption } from '@platform-ops/client';

type Event = temporal.api.history.v1.IHistoryEvent;
const TYPE = 'submitMediaTask';
const n = (value: number) => Long.fromNumber(value);
const codec = new PayloadEncryption(Keyring.of('test', [['k', randomBytes(32).toString('base64')]]));
const payloads = (value: unknown) => ({ payloads: [codec.encodeOne(defaultPayloadConverter.toPayload(value))] });

const reset = (id: number, baseRunId: string): Event => ({
  eventId: n(id),
  workflowTaskFailedEventAttributes: { baseRunId },
});
const scheduledAt = (id: number, input: unknown = {}): Event => ({
  eventId: n(id),
  activityTaskScheduledEventAttributes: {
    activityId: String(id),
    activityType: { name: TYPE },
    input: payloads(input),
    startToCloseTimeout: { seconds: n(120) },
  },
});
const completed = (id: number, scheduledEventId: number, result: unknown): Event => ({
  eventId: n(id),
  activityTaskCompletedEventAttributes: {
    scheduledEventId: n(scheduledEventId),
    startedEventId: n(id - 1),
    result: payloads(result),
  },
});
const failed = (id: number, scheduledEventId: number, type: string, started = true): Event => ({
  eventId: n(id),
  activityTaskFailedEventAttributes: {
    scheduledEventId: n(scheduledEventId),
    startedEventId: n(started ? id - 1 : 0),
    failure: { message: type, applicationFailureInfo: { type } },
  },
});
/** Timed out while waiting in its queue: never started, nothing sent. */
const timedOutInQueue = (id: number, scheduledEventId: number): Event => ({
  eventId: n(id),
  activityTaskTimedOutEventAttributes: {
    scheduledEventId: n(scheduledEventId),
    startedEventId: n(0),
    failure: { timeoutFailureInfo: { timeoutType: temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START } },
  },
});

/** A client whose only call here is a run's history, from `histories` by run id. */
function serving(histories: Record<string, Event[]>): Client {
  return {
    options: { loadedDataConverter: { payloadConverter: defaultPayloadConverter, payloadCodecs: [codec] } },
    workflow: {
      getHandle: (_id: string, runId: string) => ({
        fetchHistory: () => Promise.resolve({ events: histories[runId] }),
      }),
    },
  } as unknown as Client;
}

/** The context of the reset run's call scheduled at event `id`. */
const callAt = (id: number) =>
  ({
    info: { workflowExecution: { workflowId: 'wf', runId: 'reset' }, activityId: String(id), activityType: TYPE },
  }) as unknown as Context;

describe('earlierPaidCall (unit, histories served by a stub)', () => {
  const base = [scheduledAt(5, { generation: 1 }), completed(7, 5, { taskId: 'task-1' })];

  it('a reset run whose first submit timed out in its queue meets the earlier run’s one submit with its second', async () => {
    const own = [reset(4, 'base'), scheduledAt(5), timedOutInQueue(6, 5), scheduledAt(8)];
    const found = await earlierPaidCall(serving({ reset: own, base }), callAt(8));
    expect(found).toMatchObject({ runId: 'base', outcome: 'answered', result: { taskId: 'task-1' }, laterCalls: 0 });
  });

  it('a look-up that found nothing earlier sent nothing, and is not counted either', async () => {
    const own = [reset(4, 'base'), scheduledAt(5), failed(7, 5, FailureType.NothingEarlier), scheduledAt(8)];
    const found = await earlierPaidCall(serving({ reset: own, base }), callAt(8));
    expect(found).toMatchObject({ outcome: 'answered', result: { taskId: 'task-1' } });
  });

  it('the earlier run’s submit that timed out in its queue is not counted on its side', async () => {
    const earlier = [scheduledAt(5), timedOutInQueue(6, 5), scheduledAt(8), completed(10, 8, { taskId: 'task-2' })];
    const found = await earlierPaidCall(
      serving({ reset: [reset(4, 'base'), scheduledAt(5)], base: earlier }),
      callAt(5),
    );
    expect(found).toMatchObject({ outcome: 'answered', result: { taskId: 'task-2' } });
  });

  it('a refused submit with an accepted one after it is met as failed, with the later one counted', async () => {
    const earlier = [
      scheduledAt(5),
      failed(7, 5, FailureType.PlatformUnavailable),
      scheduledAt(9),
      completed(11, 9, {}),
    ];
    const found = await earlierPaidCall(
      serving({ reset: [reset(4, 'base'), scheduledAt(5)], base: earlier }),
      callAt(5),
    );
    expect(found).toMatchObject({ outcome: 'failed', laterCalls: 1 });
  });

  it('a call the earlier run never made is this run’s to make', async () => {
    const own = [reset(4, 'base'), scheduledAt(5), completed(7, 5, {}), scheduledAt(9)];
    expect(await earlierPaidCall(serving({ reset: own, base }), callAt(9))).toBeUndefined();
  });
});
