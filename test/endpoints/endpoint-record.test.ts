// The endpoint run's record, unit-tested without a server: worker-seconds and cost between observations, what a
// removal forgets and what continue-as-new carries.
import type { EndpointSnapshot } from '../../src/operations/serverlessEndpoint/activities';
import { EndpointRecord, UnhealthyWatch } from '../../src/operations/serverlessEndpoint/endpoint-record';

const snapshot = (running: number, extra: Partial<EndpointSnapshot> = {}): EndpointSnapshot => ({
  endpointId: 'ep-1',
  gone: false,
  platformState: 'serving',
  url: 'https://demo.example',
  workers: { running, healthy: running, total: running },
  starting: 0,
  failed: 0,
  ...extra,
});

const config = { workerConfig: { minNum: 1, maxNum: 3 } } as never;

describe('EndpointRecord', () => {
  it('counts the workers seen running until the next read, at the worker-hour price', () => {
    const record = new EndpointRecord('demo');
    record.configured(config, 3_600);
    record.observe(snapshot(0), 0);
    record.observe(snapshot(2), 10_000); // none ran before this read
    record.observe(snapshot(1), 40_000); // two ran for 30 s
    record.observe(snapshot(1), 50_000); // one ran for 10 s
    expect(record.view).toMatchObject({ workerSeconds: 70, costSoFar: 70, minWorkers: 1, maxWorkers: 3 });
  });

  it('forgets the endpoint once it is gone, and keeps its cost', () => {
    const record = new EndpointRecord('demo');
    record.endpointId = 'ep-1';
    record.configured(config, 7_200);
    record.observe(snapshot(1), 0);
    record.observe(snapshot(0, { gone: true, platformState: 'gone', url: undefined }), 1_800_000);
    record.removed();
    expect(record.endpointId).toBeUndefined();
    expect(record.view).toMatchObject({ workerSeconds: 1_800, costSoFar: 3_600, url: undefined });
  });

  it('carries its endpoint, last served config and totals over continue-as-new', () => {
    const record = new EndpointRecord('demo');
    record.endpointId = 'ep-1';
    record.served(config);
    record.observe(snapshot(2), 5);
    record.changed('deploy', 'applied');
    const next = new EndpointRecord('demo', record.carried());
    expect(next.endpointId).toBe('ep-1');
    expect(next.servedConfig).toBe(config);
    expect(next.view.changesApplied).toBe(1);
    next.observe(snapshot(2), 1_005);
    expect(next.view.workerSeconds).toBe(2);
  });
});

describe('UnhealthyWatch', () => {
  const reading = (running: number, healthy: number) =>
    snapshot(running, { platformState: 'initializing', workers: { running, healthy, total: running } });

  it('ends the wait once workers have run unhealthy for the whole bound, counting from the first such reading', () => {
    const watch = new UnhealthyWatch(600_000);
    expect(watch.see(reading(0, 0), 0)).toBe(false); // still pulling: nothing runs, nothing counts
    expect(watch.dueAt).toBeUndefined();
    expect(watch.see(reading(1, 0), 30_000)).toBe(false);
    expect(watch.dueAt).toBe(630_000);
    expect(watch.see(reading(2, 0), 600_000)).toBe(false);
    expect(watch.see(reading(2, 0), 630_000)).toBe(true);
  });

  it('starts again when every running worker turns healthy, and counts old workers serving beside sick ones', () => {
    const watch = new UnhealthyWatch(60_000);
    watch.see(reading(1, 0), 0);
    expect(watch.see(reading(1, 1), 50_000)).toBe(false);
    expect(watch.dueAt).toBeUndefined();
    // A rolling update: the old worker serves, the new one runs unhealthy.
    expect(watch.see(reading(2, 1), 60_000)).toBe(false);
    expect(watch.see(reading(2, 1), 120_000)).toBe(true);
  });
});
