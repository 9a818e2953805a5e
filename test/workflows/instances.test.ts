// renewInstance and restartInstance end to end: real Temporal dev server, real worker, real emulator.
import { FailureType, SearchAttributes, WorkflowType } from '@platform-ops/client';
import type { renewInstance, restartInstance } from '../../src/operations/instances/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import {
  activityAttempts,
  emulatorPlatform,
  eventTypes,
  recordHistory,
  uniqueId,
  withWorker as withSharedWorker,
} from '../helpers/temporal';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Faults are injected per route: this file gets an emulator of its own, so that no other test file
// running at the same time consumes (or suffers) them.
let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emulator.close());
const faults = (body?: unknown) => emulator.admin(body === undefined ? 'DELETE' : 'PUT', '/faults', body);
const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { platform: opts.platform ?? emulatorPlatform(emulator.url) });

describe('renewInstance', () => {
  afterEach(() => faults());

  it('renews and reports the expiry before and after, with search attributes', () =>
    withWorker('renew', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start<typeof renewInstance>(WorkflowType.renewInstance, {
        taskQueue,
        workflowId: uniqueId('renew'),
        args: [{ instanceId: 'inst-demo-1', months: 1 }],
      });
      const result = await handle.result();
      expect(result).toMatchObject({ instanceId: 'inst-demo-1', months: 1, alreadyApplied: false });
      expect(Number(result.endTimeAfter)).toBeGreaterThan(Number(result.endTimeBefore));
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.operation)).toBe('renewInstance');
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('RENEWED');
      expect(typedSearchAttributes.get(SearchAttributes.instanceId)).toBe('inst-demo-1');
      await recordHistory(handle, 'renewInstance-happy');
    }));

  it('fails fast on bad input, naming the field, with no activity scheduled', () =>
    withWorker('renew-bad', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.renewInstance, {
        taskQueue,
        workflowId: uniqueId('renew-bad'),
        args: [{ instanceId: '', months: 0 }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('instanceId: must not be empty');
      expect(failure.message).toContain('months: must be greater than 0');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      await recordHistory(handle, 'renewInstance-invalid');
    }));

  it('survives a burst of 5xx through activity retries', () =>
    withWorker('renew-5xx', async ({ client, taskQueue }) => {
      await faults({
        routes: { renewInstance: { errorRate5xx: 1, status5xx: 503, count: 3 } },
      });
      const handle = await client.workflow.start<typeof renewInstance>(WorkflowType.renewInstance, {
        taskQueue,
        workflowId: uniqueId('renew-5xx'),
        args: [{ instanceId: 'inst-demo-1', months: 1 }],
      });
      const result = await handle.result();
      expect(result.alreadyApplied).toBe(false);
      // getInstance, renewInstance (4th attempt), getInstance
      expect(await activityAttempts(handle)).toEqual([1, 4, 1]);
    }));

  it('does not renew twice when an attempt timed out after reaching the platform', async () => {
    // The first renew is answered only after the client gave up on it, but the emulator applies it:
    // the retry must see the moved expiry and not pay for a second renewal.
    await faults({ routes: { renewInstance: { latencyMs: 800, count: 1 } } });
    const platform = emulatorPlatform(emulator.url);
    const before = await platform.getInstance({ instanceId: 'inst-demo-1' });
    await withWorker(
      'renew-ambiguous',
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start<typeof renewInstance>(WorkflowType.renewInstance, {
          taskQueue,
          workflowId: uniqueId('renew-ambiguous'),
          args: [{ instanceId: 'inst-demo-1', months: 1 }],
        });
        const result = await handle.result();
        expect(result.alreadyApplied).toBe(true);
        expect(await activityAttempts(handle)).toEqual([1, 2, 1]);
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 300 }) },
    );
    // The workflow added exactly what one renewal of one month adds.
    const afterWorkflow = Number((await platform.getInstance({ instanceId: 'inst-demo-1' })).endTime);
    await platform.renewInstance({ instanceId: 'inst-demo-1', months: 1 });
    const afterOneMore = Number((await platform.getInstance({ instanceId: 'inst-demo-1' })).endTime);
    expect(afterWorkflow - Number(before.endTime)).toBe(afterOneMore - afterWorkflow);
  });

  it('does not renew twice when the renewal lands after the retry has started', async () => {
    // The client gives up after 3 s and the retry starts a second later, but the platform applies the
    // first renewal only at 5 s: the retry must wait that out, not see the old expiry and renew again.
    await faults({ routes: { renewInstance: { latencyMs: 5_000, count: 1 } } });
    const platform = emulatorPlatform(emulator.url);
    const before = await platform.getInstance({ instanceId: 'inst-demo-1' });
    await withWorker(
      'renew-late',
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start<typeof renewInstance>(WorkflowType.renewInstance, {
          taskQueue,
          workflowId: uniqueId('renew-late'),
          args: [{ instanceId: 'inst-demo-1', months: 1 }],
        });
        const result = await handle.result();
        expect(result.alreadyApplied).toBe(true);
        expect(await activityAttempts(handle)).toEqual([1, 2, 1]);
      },
      { platform: emulatorPlatform(emulator.url, { timeoutMs: 3_000 }) },
    );
    const afterWorkflow = Number((await platform.getInstance({ instanceId: 'inst-demo-1' })).endTime);
    await platform.renewInstance({ instanceId: 'inst-demo-1', months: 1 });
    const afterOneMore = Number((await platform.getInstance({ instanceId: 'inst-demo-1' })).endTime);
    expect(afterWorkflow - Number(before.endTime)).toBe(afterOneMore - afterWorkflow);
  });

  it('fails without retries for an unknown instance', () =>
    withWorker('renew-missing', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.renewInstance, {
        taskQueue,
        workflowId: uniqueId('renew-missing'),
        args: [{ instanceId: 'inst-does-not-exist', months: 1 }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.NotFound);
      expect(failure.nonRetryable).toBe(true);
      expect(await activityAttempts(handle)).toEqual([1]);
      await recordHistory(handle, 'renewInstance-not-found');
    }));
});

describe('restartInstance', () => {
  afterEach(() => faults());

  it('restarts and waits out restarting until running, one poll activity per status seen', () =>
    withWorker('restart', async ({ client, taskQueue }) => {
      // 1 s in toRestart, then 4 s restarting (real time): polls a second or more apart see both.
      const settings = await emulator.admin<{ settings: unknown }>('GET', '/instances');
      await emulator.admin('PUT', '/instances/settings', { toRestartMs: 10_000, restartingMs: 40_000 });
      const handle = await client.workflow.start<typeof restartInstance>(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: uniqueId('restart'),
        args: [{ instanceId: 'inst-demo-2', pollInitialSeconds: 1, pollMaxSeconds: 2, timeoutSeconds: 60 }],
      });
      const result = await handle
        .result()
        .finally(() => emulator.admin('PUT', '/instances/settings', settings.settings));
      // The same status seen twice in a row: a poll made as a retry.
      expect(result.polls).toBeGreaterThan(result.statuses.length);
      expect(result.statuses).toContain('restarting');
      expect(result.statuses[result.statuses.length - 1]).toBe('running');
      expect(result.finalStatus).toBe('running');
      expect(result.polls).toBeGreaterThanOrEqual(result.statuses.length);
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('RUNNING');
      // The restart, then a poll activity per checkpoint (each status seen), whatever the number of
      // polls: the polls between checkpoints are retries, which add no events.
      const types = await eventTypes(handle);
      expect(types.filter((t) => t === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(1 + result.statuses.length);
      await recordHistory(handle, 'restartInstance-running');
    }));

  it('survives a platform outage far longer than a retry count: the polls go on until it ends', () =>
    withWorker('restart-outage', async ({ client, taskQueue }) => {
      // Every get-instance fails with 503 for 20 s; the restart itself goes through.
      await faults({ routes: { getInstance: { errorRate5xx: 1, status5xx: 503 } } });
      const handle = await client.workflow.start<typeof restartInstance>(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: uniqueId('restart-outage'),
        args: [{ instanceId: 'inst-demo-2', pollInitialSeconds: 0.1, pollMaxSeconds: 1, timeoutSeconds: 120 }],
      });
      await sleep(20_000);
      const { raw } = await handle.describe();
      const [pending] = raw.pendingActivities ?? [];
      expect(pending?.activityType?.name).toBe('pollInstanceStatus');
      // More attempts than a retry count would allow: the polls go on until the deadline.
      expect(pending?.attempt).toBeGreaterThan(10);
      expect(pending?.lastFailure?.applicationFailureInfo?.type).toBe(FailureType.PlatformUnavailable);
      await faults();

      const result = await handle.result();
      expect(result.finalStatus).toBe('running');
      expect(result.polls).toBeGreaterThan(10);
      // The wait begins after the restart call, a moment after the 20 s outage did: it cannot end before
      // the outage ends, less that moment (up to a couple of seconds on a loaded machine).
      expect(result.waitedSeconds).toBeGreaterThanOrEqual(18);
      // The failed polls left no trace in the history: one restart, one poll activity.
      const types = await eventTypes(handle);
      expect(types.filter((t) => t === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(2);
      expect(types.length).toBeLessThan(30);
    }));

  it('ends as DeadlineExceeded when the instance is not seen running by the deadline', () =>
    withWorker('restart-deadline', async ({ client, taskQueue }) => {
      await faults({ routes: { getInstance: { errorRate5xx: 1, status5xx: 503 } } });
      const handle = await client.workflow.start<typeof restartInstance>(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: uniqueId('restart-deadline'),
        args: [{ instanceId: 'inst-demo-2', pollInitialSeconds: 0.5, pollMaxSeconds: 2, timeoutSeconds: 10 }],
      });
      const started = Date.now();
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.DeadlineExceeded);
      expect(failure.message).toContain('was not running 10s after the restart (statuses seen: none)');
      // Ended by the activity at the deadline, not by the server's bound a minute later.
      expect(Date.now() - started).toBeLessThan(20_000);
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('TIMED_OUT');
      await recordHistory(handle, 'restartInstance-timed-out');
    }));

  it('fails fast on bad input', () =>
    withWorker('restart-bad', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: uniqueId('restart-bad'),
        args: [{ instanceId: 'inst-demo-2', pollInitialSeconds: 5, pollMaxSeconds: 1 }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('pollMaxSeconds: must be at least pollInitialSeconds');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
    }));

  it('fails without retries for an unknown instance', () =>
    withWorker('restart-missing', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.restartInstance, {
        taskQueue,
        workflowId: uniqueId('restart-missing'),
        args: [{ instanceId: 'inst-does-not-exist' }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.NotFound);
      expect(await activityAttempts(handle)).toEqual([1]);
    }));
});
