// The pure state derivation of batches (packages/emulator/src/batches/state.ts): edge cases the HTTP suite
// does not reach.
import { deriveState, endOf, type Timeline, type TimelinePlan } from '../src/batches/state';

const PLAN: TimelinePlan = {
  validatingMs: 10,
  perRequestMs: 10,
  finalizingMs: 5,
  cancellingMs: 7,
  windowMs: 1_000,
  failWholeBatch: false,
};

/** `total` requests, of which those at the given indexes fail. */
function timeline(total: number, plan: Partial<TimelinePlan> = {}, failing: number[] = []): Timeline {
  const failuresBefore = [0];
  for (let i = 0; i < total; i++) failuresBefore.push(failuresBefore[i] + (failing.includes(i) ? 1 : 0));
  return { createdAt: 0, plan: { ...PLAN, ...plan }, total, failuresBefore };
}

describe('deriveState', () => {
  it('counts finished requests one per perRequestMs and completes after finalizing', () => {
    const t = timeline(3, {}, [1]);
    expect(deriveState(t, 9)).toMatchObject({ status: 'VALIDATING', finished: 0, updatedAt: null, version: 1 });
    expect(deriveState(t, 10)).toMatchObject({ status: 'PROGRESS', inProgressAt: 10, finished: 0, version: 2 });
    expect(deriveState(t, 29)).toMatchObject({ finished: 1, completed: 1, failed: 0, updatedAt: 20 });
    expect(deriveState(t, 30)).toMatchObject({ finished: 2, completed: 1, failed: 1 });
    expect(deriveState(t, 40)).toMatchObject({ status: 'PROGRESS', finalizingAt: 40, finished: 3, version: 3 });
    expect(deriveState(t, 45)).toMatchObject({ status: 'COMPLETED', completedAt: 45, version: 4, updatedAt: 45 });
    expect(endOf(t)).toEqual({ status: 'COMPLETED', at: 45 });
  });

  it('runs every request at once when perRequestMs is 0', () => {
    expect(deriveState(timeline(5, { perRequestMs: 0, finalizingMs: 0 }), 10)).toMatchObject({
      status: 'COMPLETED',
      finished: 5,
      inProgressAt: 10,
      finalizingAt: 10,
    });
  });

  it('expires during validation when the window is shorter than validation', () => {
    const s = deriveState(timeline(2, { windowMs: 5 }), 5);
    expect(s).toMatchObject({ status: 'EXPIRED', expiredAt: 5, inProgressAt: null, finished: 0 });
  });

  it('expires during finalizing with every request delivered', () => {
    const s = deriveState(timeline(2, { windowMs: 32 }), 100);
    expect(s).toMatchObject({ status: 'EXPIRED', finalizingAt: 30, expiredAt: 32, finished: 2, completedAt: null });
  });

  it('stops work at the cancel, even during validation', () => {
    const inValidation: Timeline = { ...timeline(2), cancelRequestedAt: 5 };
    expect(deriveState(inValidation, 6)).toMatchObject({ status: 'CANCELLING', cancellingAt: 5, inProgressAt: null });
    expect(deriveState(inValidation, 12)).toMatchObject({ status: 'CANCELLED', cancelledAt: 12, finished: 0 });
    const inProgress: Timeline = { ...timeline(5), cancelRequestedAt: 25 };
    expect(deriveState(inProgress, 1_000)).toMatchObject({ status: 'CANCELLED', finished: 1, finalizingAt: null });
  });

  it('fails a whole batch at the end of validation', () => {
    const s = deriveState(timeline(3, { failWholeBatch: true }), 50);
    expect(s).toMatchObject({ status: 'FAILED', failedAt: 10, inProgressAt: null, finished: 0, version: 2 });
  });
});
