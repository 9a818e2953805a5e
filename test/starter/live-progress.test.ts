// The poll activity's heartbeat read from describe(), laid over the query's checkpoint figures.
import { defaultPayloadConverter } from '@temporalio/common';
import type { MediaProgress, TaskObservation } from '../../src/workflows/media/contract';
import { heartbeatObservation, withHeartbeat } from '../../src/starter/live-progress';

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
const pending = (name: string, details: unknown) => [
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

describe('live progress from the heartbeat', () => {
  it('reads the poll activity’s last "still running" failure', () => {
    expect(heartbeatObservation(stillRunning('pollTaskResult', obs))).toEqual(obs);
    expect(heartbeatObservation(stillRunning('keepTaskOutputs', obs))).toBeUndefined();
    expect(heartbeatObservation(stillRunning('pollTaskResult', { file: 1 }))).toBeUndefined();
  });

  it('reads the older wait activity’s heartbeat, and nothing else', () => {
    expect(heartbeatObservation(pending('waitForTaskResult', obs))).toEqual(obs);
    expect(heartbeatObservation(pending('keepTaskOutputs', obs))).toBeUndefined();
    expect(heartbeatObservation(pending('waitForTaskResult', { file: 1 }))).toBeUndefined();
    expect(heartbeatObservation([])).toBeUndefined();
  });

  it('lays a newer heartbeat of the same task over the query, keeping earlier generations’ polls', () => {
    expect(withHeartbeat(queried, obs)).toMatchObject({
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

  it('ignores an older heartbeat, or one of another task', () => {
    expect(withHeartbeat(queried, { ...obs, observedAt: Date.parse('2026-11-22T10:00:01Z') })).toBe(queried);
    expect(withHeartbeat(queried, { ...obs, taskId: 'other' })).toBe(queried);
    expect(withHeartbeat(queried, undefined)).toBe(queried);
  });
});
