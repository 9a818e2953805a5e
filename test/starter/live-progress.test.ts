// The poll activity's last poll read from describe(), laid over the query's checkpoint figures.
import { defaultPayloadConverter } from '@temporalio/common';
import type { MediaProgress, TaskObservation } from '../../src/workflows/media/contract';
import { lastTaskPoll, withLastPoll } from '../../src/workflows/media/starter';

const obs: TaskObservation = {
  taskId: 't1',
  status: 'TASK_STATUS_PROCESSING',
  progressPercent: 60,
  eta: 4,
  polls: 7,
  observedAt: Date.parse('2026-11-22T10:00:10Z'),
  nextPollAt: Date.parse('2026-11-22T10:00:12Z'),
};
const queried: MediaProgress = {
  taskId: 't1',
  generation: 2,
  status: 'PROCESSING',
  progressPercent: 25,
  polls: 9,
  taskPolls: 3,
  observedAt: '2026-11-22T10:00:02.000Z',
  submissions: 2,
};
const heartbeating = (name: string, details: unknown) => [
  {
    activityType: { name },
    heartbeatDetails: { payloads: [defaultPayloadConverter.toPayload(details)] },
  },
];

const stillRunning = (name: string, details: unknown) => [
  {
    activityType: { name },
    lastFailure: {
      applicationFailureInfo: {
        type: 'StillRunning',
        details: { payloads: [defaultPayloadConverter.toPayload(details)] },
      },
    },
  },
];

describe('live progress from the last poll', () => {
  it('reads the poll activity’s last "still running" failure', () => {
    expect(lastTaskPoll(stillRunning('pollTaskResult', obs))).toEqual(obs);
    expect(lastTaskPoll(stillRunning('keepTaskOutputs', obs))).toBeUndefined();
    expect(lastTaskPoll(stillRunning('pollTaskResult', { file: 1 }))).toBeUndefined();
  });

  it('reads nothing else: not a heartbeat, not an empty list', () => {
    expect(lastTaskPoll(heartbeating('pollTaskResult', obs))).toBeUndefined();
    expect(lastTaskPoll([])).toBeUndefined();
  });

  it('lays a newer poll of the same task over the query, keeping earlier generations’ polls', () => {
    expect(withLastPoll(queried, obs)).toMatchObject({
      status: 'PROCESSING',
      progressPercent: 60,
      eta: 4,
      polls: 13, // 6 for the first generation + 7 so far for this one
      taskPolls: 7,
      observedAt: '2026-11-22T10:00:10.000Z',
      nextPollAt: '2026-11-22T10:00:12.000Z',
      generation: 2,
    });
  });

  it('ignores an older poll, or one of another task', () => {
    expect(withLastPoll(queried, { ...obs, observedAt: Date.parse('2026-11-22T10:00:01Z') })).toBe(queried);
    expect(withLastPoll(queried, { ...obs, taskId: 'other' })).toBe(queried);
    expect(withLastPoll(queried, undefined)).toBe(queried);
  });
});
