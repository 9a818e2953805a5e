// The fault suite's Nexus rules: when a caller ended as its run did, and which paid calls are the Nexus-started runs'.
import { endedAsRun, nexusFigures, nexusPaid, nexusRunIds } from '../../bench/chaos/nexus';

const result = { status: 'SUCCEEDED', outputs: [{ url: 'https://example/a.mp4' }] };

describe('chaos Nexus part', () => {
  it("counts a caller as its run only with the run's result, or failed with the run's failure among its causes", () => {
    const done = { status: 'COMPLETED', result };
    const failed = { status: 'FAILED', failureType: 'AmbiguousSubmission' };
    expect(endedAsRun(done, done)).toBe(true);
    expect(endedAsRun({ status: 'COMPLETED', result: { ...result, outputs: [] } }, done)).toBe(false);
    expect(endedAsRun({ status: 'RUNNING' }, done)).toBe(false);
    const callerFailed = { status: 'FAILED', causes: ['NexusOperationFailure', 'AmbiguousSubmission'] };
    expect(endedAsRun(callerFailed, failed)).toBe(true);
    expect(endedAsRun({ status: 'FAILED', causes: ['NexusOperationFailure', 'TimeoutFailure'] }, failed)).toBe(false);
    // A run that never started, or still runs, is never the caller's end.
    expect(endedAsRun({ status: 'FAILED', causes: ['NOT_FOUND'] }, { status: 'NOT_FOUND' })).toBe(false);

    const f = nexusFigures([
      { callerId: 'a', caller: done, run: done },
      { callerId: 'b', caller: callerFailed, run: failed },
      { callerId: 'c', caller: { status: 'RUNNING' }, run: done },
    ]);
    expect(f).toEqual({
      runs: 3,
      results: 1,
      failedAsRun: 1,
      mismatched: { total: 1, examples: ['c: caller RUNNING, run COMPLETED'] },
      duplicatePaid: 0,
    });
  });

  it("keeps the Nexus-started runs' subjects alone, and names their runs by the callers' keys", () => {
    const paid = {
      byRoute: {
        submitTextToVideo: {
          'chaos mediaGeneration:chaos-outage-nexus-0 [emulator:duration=120000]': 2,
          'chaos chaos-outage-mediaGeneration-0 [emulator:duration=120000]': 2,
        },
        renewInstance: { 'chaos-renew-outage-0': 1 },
      },
    };
    expect(nexusPaid(paid).byRoute).toEqual({
      submitTextToVideo: { 'chaos mediaGeneration:chaos-outage-nexus-0 [emulator:duration=120000]': 2 },
      renewInstance: {},
    });
    expect(nexusRunIds('reset', 8)).toEqual([
      'mediaGeneration:chaos-reset-nexus-0',
      'mediaGeneration:chaos-reset-nexus-1',
      'budgetGatedJob:chaos-reset-nexus-0',
      'budgetGatedJob:chaos-reset-nexus-1',
    ]);
    expect(nexusRunIds('reset', 8, true)).toEqual([
      'mediaGeneration:chaos-reset-nexus-0',
      'budgetGatedJob:chaos-reset-nexus-0',
    ]);
  });
});
