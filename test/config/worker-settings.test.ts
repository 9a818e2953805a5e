// The worker's tuning settings (unit test, no server): defaults, and the bound between the poll waits a worker
// makes in its attempts and its activity slots, refused before the worker starts.
import { loadWorkerSettings } from '../../src/config/settings';

describe('worker settings', () => {
  it('keeps half the activity slots free of poll waits by default', () => {
    const s = loadWorkerSettings({});
    expect(s.WORKER_MAX_CONCURRENT_ACTIVITIES).toBe(2000);
    expect(s.WORKER_IN_ATTEMPT_WAITS).toBe(1000);
    expect(loadWorkerSettings({ WORKER_IN_ATTEMPT_WAITS: '0' }).WORKER_IN_ATTEMPT_WAITS).toBe(0);
  });

  it('refuses more poll waits than half the slots, naming both settings', () => {
    expect(() =>
      loadWorkerSettings({ WORKER_MAX_CONCURRENT_ACTIVITIES: '100', WORKER_IN_ATTEMPT_WAITS: '51' }),
    ).toThrow('WORKER_IN_ATTEMPT_WAITS: must be at most half of WORKER_MAX_CONCURRENT_ACTIVITIES');
    expect(() => loadWorkerSettings({ WORKER_IN_ATTEMPT_WAITS: '-1' })).toThrow(/WORKER_IN_ATTEMPT_WAITS/);
    expect(
      loadWorkerSettings({ WORKER_MAX_CONCURRENT_ACTIVITIES: '100', WORKER_IN_ATTEMPT_WAITS: '50' }),
    ).toBeDefined();
  });
});
