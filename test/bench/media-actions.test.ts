// Temporal Cloud's Action rules as the media benchmark counts them from a history.
import Long from 'long';
import { historyActions } from '../../bench/media/actions';
import { EventType, type HistoryEvent } from '../../bench/support/history-phases';

const ev = (eventId: number, eventType: number, attrs: Partial<HistoryEvent> = {}): HistoryEvent => ({
  eventId: Long.fromNumber(eventId),
  eventType,
  ...attrs,
});

const scheduled = (id: number, name: string) =>
  ev(id, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, {
    activityTaskScheduledEventAttributes: { activityType: { name } },
  });
const started = (id: number, scheduledEventId: number, attempt: number) =>
  ev(id, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, {
    activityTaskStartedEventAttributes: { scheduledEventId: Long.fromNumber(scheduledEventId), attempt },
  });
const upsert = (id: number, ...keys: string[]) =>
  ev(id, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
    upsertWorkflowSearchAttributesEventAttributes: {
      searchAttributes: { indexedFields: Object.fromEntries(keys.map((k) => [k, {}])) },
    },
  });
const marker = (id: number, workflowTaskCompletedEventId: number) =>
  ev(id, EventType.EVENT_TYPE_MARKER_RECORDED, {
    markerRecordedEventAttributes: { workflowTaskCompletedEventId: Long.fromNumber(workflowTaskCompletedEventId) },
  });

describe('historyActions', () => {
  it('counts the start, each activity attempt, timers, signals, updates and children', () => {
    const detail = { attemptsByActivity: {}, upsertsByAttributes: {}, markersByName: {} };
    const counts = historyActions(
      [
        ev(1, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
        scheduled(5, 'submit'),
        started(6, 5, 1),
        scheduled(9, 'poll'),
        // Retried attempts leave no events of their own: the last start carries the attempt number.
        started(10, 9, 4),
        scheduled(12, 'poll'),
        ev(13, EventType.EVENT_TYPE_TIMER_STARTED),
        ev(14, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
        ev(15, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        ev(16, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
        ev(17, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED),
      ],
      detail,
    );
    expect(counts).toEqual({
      workflowStarts: 1,
      // 1 + 4 + 1: an activity scheduled but not yet started is billed for its scheduling.
      activityAttempts: 6,
      timers: 1,
      signals: 1,
      updates: 1,
      searchAttributeUpserts: 0,
      childWorkflows: 2,
      markerTasks: 0,
      optionsUpdates: 1,
    });
    expect(detail.attemptsByActivity).toEqual({ submit: 1, poll: 5 });
  });

  it('counts one per upsert command however many attributes, none for the change version alone', () => {
    const detail = { attemptsByActivity: {}, upsertsByAttributes: {}, markersByName: {} };
    const counts = historyActions(
      [
        upsert(3, 'PlatformStatus', 'PlatformOperation'),
        upsert(7, 'TemporalChangeVersion'),
        upsert(9, 'PlatformTaskId'),
      ],
      detail,
    );
    expect(counts.searchAttributeUpserts).toBe(2);
    expect(detail.upsertsByAttributes).toEqual({ 'PlatformOperation+PlatformStatus': 1, PlatformTaskId: 1 });
  });

  it('counts the markers of one workflow task once', () => {
    const counts = historyActions([marker(5, 4), marker(6, 4), marker(11, 10)]);
    expect(counts.markerTasks).toBe(2);
  });
});
