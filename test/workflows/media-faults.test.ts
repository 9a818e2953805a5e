// mediaGeneration under trouble, on an emulator of this file's own (faults are global per route, and
// the eta test needs a real-time clock): 429s and 5xx while submitting and polling, ambiguous submits
// under both policies, eta-guided polling, cancellation, and a worker killed mid-poll.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { FailureType, type MediaGenerationInput, mediaProgressQuery, WorkflowType } from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { cleanEnv, startNode, waitFor } from '../helpers/processes';
import {
  emulatorPlatform,
  recordHistory,
  uniqueId,
  withClient,
  withWorker as withSharedWorker,
  type TemporalTestContext,
} from '../helpers/temporal';
import { testEnv } from '../setup/shared';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());
afterEach(() => emulator.admin('DELETE', '/faults'));

const withWorker: typeof withSharedWorker = (prefix, fn, opts = {}) =>
  withSharedWorker(prefix, fn, { ...opts, platform: opts.platform ?? emulatorPlatform(emulator.url) });

interface Counters {
  submissions: { total: number; byOperation: Record<string, number> };
  polls: { byTask: Record<string, number> };
  requests: Record<string, number>;
}
const counters = () => emulator.admin<Counters>('GET', '/counters');
const submissionsSoFar = async () => (await counters()).submissions.total;
const pollsOf = async (taskId: string) => (await counters()).polls.byTask[taskId] ?? 0;

function start(ctx: TemporalTestContext, input: MediaGenerationInput, workflowId = uniqueId('media')) {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId,
    args: [input],
  });
}

const QUICK_SUBMIT = { backoffInitialMs: 100, backoffMaxMs: 500 };

describe('mediaGeneration under faults', () => {
  it('survives 429s and 5xx while submitting, with every attempt recorded and one task created', () =>
    withWorker('media-submit-faults', async (ctx) => {
      await emulator.admin('PUT', '/faults', {
        routes: { submitTextToVideo: { rate429: 0.5, errorRate5xx: 0.5, retryAfterSeconds: 1, count: 4 } },
      });
      const before = await submissionsSoFar();
      const result = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'rain [emulator:duration=300]' },
        submission: QUICK_SUBMIT,
        polling: { minIntervalMs: 100 },
        keepOutputs: false,
      }).then((h) => h.result());
      expect(result.submissions.map((s) => s.outcome)).toEqual([
        'refused',
        'refused',
        'refused',
        'refused',
        'accepted',
      ]);
      for (const s of result.submissions.slice(0, 4)) {
        expect([FailureType.RateLimited, FailureType.PlatformUnavailable]).toContain(s.error?.type);
      }
      expect((await submissionsSoFar()) - before).toBe(1);
    }));

  it('waits out a submit outage longer than any attempt count, and ends at the deadline when it does not end', () =>
    withWorker('media-submit-outage', async (ctx) => {
      // 503 on every submit for 6 s: with 100-500 ms backoff, far more refusals than maxAttempts (2).
      await emulator.admin('PUT', '/faults', { routes: { submitTextToVideo: { errorRate5xx: 1, status5xx: 503 } } });
      const outageOver = new Promise((r) => setTimeout(r, 6_000)).then(() => emulator.admin('DELETE', '/faults'));
      const before = await submissionsSoFar();
      const handle = await start(
        ctx,
        {
          operation: 'text-to-video',
          request: { prompt: 'fog [emulator:duration=300]' },
          submission: { ...QUICK_SUBMIT, maxAttempts: 2 },
          polling: { minIntervalMs: 100 },
          keepOutputs: false,
        },
        uniqueId('media-submit-outage'),
      );
      const result = await handle.result();
      await outageOver;
      const outcomes = result.submissions.map((s) => s.outcome);
      // More refusals than maxAttempts (2) allows: refused attempts do not count. How many more depends
      // on how fast a loaded machine turns attempts around in 6 s.
      expect(outcomes.filter((o) => o === 'refused').length).toBeGreaterThan(2);
      expect(outcomes[outcomes.length - 1]).toBe('accepted');
      expect((await submissionsSoFar()) - before).toBe(1);
      await recordHistory(handle, 'mediaGeneration-submit-outage-1.3');

      // An outage that outlasts the deadline (10 s) ends the run then, as DeadlineExceeded.
      await emulator.admin('PUT', '/faults', { routes: { submitTextToVideo: { errorRate5xx: 1, status5xx: 503 } } });
      const startedAt = Date.now();
      const failure = await failureOf(
        start(ctx, {
          operation: 'text-to-video',
          request: { prompt: 'smog [emulator:duration=300]' },
          submission: { ...QUICK_SUBMIT, maxAttempts: 2 },
          deadlineSeconds: 10,
        }).then((h) => h.result()),
      );
      await emulator.admin('DELETE', '/faults');
      expect(failure.type).toBe(FailureType.DeadlineExceeded);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(9_000);
    }));

  it('survives 429s and 5xx while polling', () =>
    withWorker('media-poll-faults', async (ctx) => {
      await emulator.admin('PUT', '/faults', {
        routes: { taskResult: { rate429: 0.5, errorRate5xx: 0.5, retryAfterSeconds: 1, count: 4 } },
      });
      const result = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'snow [emulator:duration=500]' },
        polling: { minIntervalMs: 100 },
        keepOutputs: false,
      }).then((h) => h.result());
      expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED' })]);
      // Failed polls are retried until the deadline, and counted: 4 refused, then at least one answered.
      expect(result.polls).toBeGreaterThanOrEqual(5);
      expect((await counters()).requests.taskResult).toBeGreaterThanOrEqual(result.polls);
    }));

  describe('a submit that may have reached the platform (the answer came after the client gave up)', () => {
    // The emulator creates the task, but only answers after 1.5 s; the client waits 0.6 s.
    const slowSubmit = () =>
      emulator.admin('PUT', '/faults', { routes: { submitTextToVideo: { latencyMs: 1_500, count: 1 } } });
    const impatient = () => emulatorPlatform(emulator.url, { timeoutMs: 600 });

    it('policy "fail" (default): not sent again, the workflow fails as AmbiguousSubmission', () =>
      withWorker(
        'media-ambiguous-fail',
        async (ctx) => {
          await slowSubmit();
          const before = await submissionsSoFar();
          const handle = await start(ctx, {
            operation: 'text-to-video',
            request: { prompt: 'dunes [emulator:duration=300]' },
            submission: QUICK_SUBMIT,
          });
          const failure = await failureOf(handle.result());
          expect(failure.type).toBe(FailureType.AmbiguousSubmission);
          expect(failure.message).toMatch(/may have created a task.*not sent again/);
          const [{ attempts }] = failure.details as [{ attempts: { outcome: string }[] }];
          expect(attempts.map((a) => a.outcome)).toEqual(['ambiguous']);
          await new Promise((r) => setTimeout(r, 1_500)); // let the slow request land
          expect((await submissionsSoFar()) - before).toBe(1);
        },
        { platform: impatient() },
      ));

    it('policy "resubmit": sent again, and the possible duplicate is counted and named', () =>
      withWorker(
        'media-ambiguous-resubmit',
        async (ctx) => {
          await slowSubmit();
          const before = await submissionsSoFar();
          const result = await start(ctx, {
            operation: 'text-to-video',
            request: { prompt: 'cliffs [emulator:duration=300]' },
            submission: { ...QUICK_SUBMIT, onAmbiguous: 'resubmit' },
            polling: { minIntervalMs: 100 },
            keepOutputs: false,
          }).then((h) => h.result());
          expect(result.submissions).toEqual([
            expect.objectContaining({ outcome: 'ambiguous' }),
            expect.objectContaining({ outcome: 'accepted', possibleDuplicate: true }),
          ]);
          expect(result.possibleDuplicates).toBe(1);
          await new Promise((r) => setTimeout(r, 1_500));
          expect((await submissionsSoFar()) - before).toBe(2);
        },
        { platform: impatient() },
      ));
  });

  it('follows an accurate eta: few polls, and the end is noticed quickly', () =>
    withWorker('media-eta', async (ctx) => {
      const result = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'clouds [emulator:duration=4000]' },
        keepOutputs: false,
      }).then((h) => h.result());
      const polls = await pollsOf(result.taskId);
      expect(polls).toBe(result.polls);
      // A fixed one-second loop would make 4 or 5 polls; the eta lets us make 2 or 3.
      expect(polls).toBeLessThanOrEqual(3);
      const task = await emulator.admin<{ finishedAtReal: number }>('GET', `/tasks/${result.taskId}`);
      const detectionMs = Date.parse(result.timings.doneAt) - task.finishedAtReal;
      expect(detectionMs).toBeGreaterThanOrEqual(0);
      expect(detectionMs).toBeLessThan(1_500);
    }));

  it('waits for a far poll in the worker: the whole wait is one poll attempt, and the end is still noticed quickly', () =>
    withWorker('media-in-attempt', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'a longer take [emulator:duration=30000]' },
        keepOutputs: false,
      });
      const result = await handle.result();
      await recordHistory(handle, 'mediaGeneration-poll-waits-in-attempt-1.3');
      const events = (await handle.fetchHistory()).events ?? [];
      const pollIds = events.flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a?.activityType?.name === 'pollTaskResult' ? [String(e.eventId)] : [];
      });
      expect(pollIds).toHaveLength(1);
      // Retries are not in the history: the started event's attempt says how many attempts the wait took.
      const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === pollIds[0]);
      expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
      expect(await pollsOf(result.taskId)).toBe(result.polls);
      expect(result.polls).toBeLessThanOrEqual(3);
      const task = await emulator.admin<{ finishedAtReal: number }>('GET', `/tasks/${result.taskId}`);
      expect(Date.parse(result.timings.doneAt) - task.finishedAtReal).toBeLessThan(1_500);
    }));

  it('stops polling promptly when the workflow is cancelled', () =>
    withWorker('media-cancel', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'forever [emulator:duration=600000]' },
        polling: { minIntervalMs: 200, maxIntervalMs: 200 },
      });
      // The query learns of polls at checkpoints only; the emulator counts every one.
      await waitFor(async () => (await handle.query(mediaProgressQuery)).taskId !== undefined, 20_000, 'the submit');
      const { taskId } = await handle.query(mediaProgressQuery);
      await waitFor(async () => (await pollsOf(taskId!)) >= 3, 20_000, 'a few polls');
      const cancelledAt = Date.now();
      await handle.cancel();
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(Date.now() - cancelledAt).toBeLessThan(5_000);
      // Between polls nothing runs; a poll attempt already in flight (one read) may still finish.
      const pollsAtCancel = await pollsOf(taskId!);
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await pollsOf(taskId!)).toBeLessThanOrEqual(pollsAtCancel + 1);
    }));

  it('reports clearly when an output URL expired before it could be copied', () =>
    withWorker('media-expired', async (ctx) => {
      // 100,000 emulated ms per real ms: the 1 s TTL is gone by the time anyone could copy.
      await emulator.admin('PUT', '/clock', { speed: 100_000 });
      try {
        const handle = await start(ctx, {
          operation: 'text-to-video',
          request: { prompt: 'brief [emulator:ttl=1] [emulator:duration=100]' },
          polling: { minIntervalMs: 100 },
        });
        const failure = await failureOf(handle.result());
        expect(failure.type).toBe(FailureType.OutputExpired);
        expect(failure.nonRetryable).toBe(true);
        expect(failure.message).toMatch(/TTL of 1 s/);
      } finally {
        await emulator.admin('PUT', '/clock', { speed: 1 });
      }
    }));

  it('completes after the worker is killed mid-poll, with exactly one submission', async () => {
    const taskQueue = `media-kill-${randomUUID().slice(0, 8)}`;
    const workerEnv = cleanEnv({
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      PLATFORM_BASE_URL: emulator.url,
      PLATFORM_API_KEY: DEV_API_KEY,
      ARTIFACT_DIR: mkdtempSync(path.join(tmpdir(), 'media-kill-')),
    });
    const first = startNode('worker.js', workerEnv);
    const firstExited = new Promise((resolve) => first.child.on('exit', resolve));
    const before = await submissionsSoFar();
    try {
      await waitFor(() => first.output().includes('Worker started'), 60_000, 'the first worker');
      await withClient(async (client) => {
        const handle = await client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
          taskQueue,
          workflowId: uniqueId('media-kill'),
          args: [
            {
              operation: 'text-to-video',
              request: { prompt: 'survivor [emulator:duration=6000]' },
              polling: { minIntervalMs: 300, maxIntervalMs: 300 },
            },
          ],
        });
        await waitFor(
          async () => (await handle.query(mediaProgressQuery)).status === 'PROCESSING',
          20_000,
          'the task to be processing',
        );
        first.child.kill('SIGKILL');
        await firstExited;
        // A second worker takes over; the poll activity's next attempt resumes from its input.
        const second = startNode('worker.js', workerEnv);
        try {
          const result = await handle.result();
          expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED' })]);
          expect(result.submissions).toHaveLength(1);
          expect(result.outputs).toHaveLength(1);
          expect((await submissionsSoFar()) - before).toBe(1);
        } finally {
          second.child.kill('SIGTERM');
        }
      });
    } finally {
      first.child.kill('SIGKILL');
    }
  });
});
