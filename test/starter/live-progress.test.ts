// The poll activity's last poll read from describe(), laid over the query's checkpoint figures.
import { defaultPayloadConverter } from '@temporalio/common';
import type { MediaProgress, TaskObservation } from '@platform-ops/client';
import { withLastPoll } from '../../src/cli/progress';
import { starter } from '../../src/operations/mediaGeneration/starter';

const fresher = (progress: MediaProgress, pending: Parameters<typeof withLastPoll>[1]) =>
  withLastPoll(progress, pending, starter.watch!.mediaGeneration!.poll!) as MediaProgress;

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
    expect(fresher(queried, stillRunning('pollTaskResult', obs))).toMatchObject({ progressPercent: 60, taskPolls: 7 });
    expect(fresher(queried, stillRunning('keepTaskOutputs', obs))).toBe(queried);
    expect(fresher(queried, stillRunning('pollTaskResult', { file: 1 }))).toBe(queried);
  });

  it('reads nothing else: not a heartbeat, not an empty list', () => {
    expect(fresher(queried, heartbeating('pollTaskResult', obs))).toBe(queried);
    expect(fresher(queried, [])).toBe(queried);
  });

  it('lays a newer poll of the same task over the query, keeping earlier generations’ polls', () => {
    expect(fresher(queried, stillRunning('pollTaskResult', obs))).toMatchObject({
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
    const older = { ...obs, observedAt: Date.parse('2026-11-22T10:00:01Z') };
    expect(fresher(queried, stillRunning('pollTaskResult', older))).toBe(queried);
    expect(fresher(queried, stillRunning('pollTaskResult', { ...obs, taskId: 'other' }))).toBe(queried);
    expect(fresher(queried, undefined)).toBe(queried);
  });
});
