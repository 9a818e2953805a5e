// One rate limit per platform quota, shared by every worker, on the real dev server and a real
// emulator of this file's own (its quotas are changed here; clock speed 10, so its minute is 6 s).
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { type MediaGenerationInput, quotaTaskQueue, WorkflowType } from '@platform-ops/client';
import { AdaptivePacing, decodePacingReason } from '../../src/ratelimit/pacing';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { DEV_API_KEY } from '@platform-ops/emulator';
import { busiestWindow } from '../../bench/support/stats';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { cleanEnv, runNode, waitFor } from '../helpers/processes';
import { testEnv } from '../setup/shared';
import { recordHistory, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

const T2V_MODEL = 'vendor-v3.0-pro-t2v';
const WINDOW_MS = 6_000;
const FAST = { minIntervalMs: 200, maxIntervalMs: 1_000 };

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clockSpeed: 10 });
});
afterAll(() => emu.close());
afterEach(() => emu.admin('POST', '/reset'));

const setQuota = (currentQuota: number) =>
  emu.admin('PUT', '/quotas', { quotaObject: T2V_MODEL, quotaType: 'RPM', currentQuota });

async function queueLimit(client: Client, taskQueue: string) {
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: quotaTaskQueue(taskQueue, 'text-to-video') },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportConfig: true,
  });
  const limit = res.config?.queueRateLimit;
  return { rps: limit?.rateLimit?.requestsPerSecond ?? undefined, state: decodePacingReason(limit?.metadata?.reason) };
}

function startGenerations(ctx: TemporalTestContext, n: number) {
  const input: MediaGenerationInput = {
    operation: 'text-to-video',
    request: { prompt: 'a paced fox [emulator:duration=1000]', duration: 5 },
    polling: FAST,
  };
  return Promise.all(
    Array.from({ length: n }, () =>
      ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('paced'),
        args: [input],
      }),
    ),
  );
}

/** The identities of the workers that started the submits of `handles` (`firstOnly`: each one's first attempt). */
async function submitWorkers(
  handles: Awaited<ReturnType<typeof startGenerations>>,
  firstOnly = false,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const h of handles) {
    const started = ((await h.fetchHistory()).events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    for (const e of firstOnly ? started.slice(0, 1) : started) {
      const identity = e.activityTaskStartedEventAttributes?.identity;
      if (identity) ids.add(identity);
    }
  }
  return ids;
}

/** Two workers on one task queue, both polling its quota queues, as two worker processes would. */
const withTwoWorkers = <T>(
  prefix: string,
  opts: NonNullable<Parameters<typeof withWorker>[2]>,
  fn: (ctx: TemporalTestContext) => Promise<T>,
): Promise<T> => withWorker(prefix, (a) => withWorker(prefix, () => fn(a), { ...opts, taskQueue: a.taskQueue }), opts);

describe('shared rate limit', () => {
  it("takes the quota list's limit, and two workers submit at that one pace with no 429", async () => {
    await setQuota(30);
    const platform = emu.client();
    await withTwoWorkers('paced', { platform }, async (a) => {
      const limit = await queueLimit(a.client, a.taskQueue);
      // The dev server runs one partition per queue, and the workers asked it.
      expect(limit.rps).toBeCloseTo(AdaptivePacing.targetRps(30, WINDOW_MS, 1), 3);
      expect(limit.state).toMatchObject({ factor: 1 });

      const handles = await startGenerations(a, 40);
      const results = await Promise.all(handles.map((h) => h.result()));
      const accepted = results.flatMap((r) =>
        r.submissions.filter((s) => s.outcome === 'accepted').map((s) => Date.parse(s.at!)),
      );
      expect(accepted).toHaveLength(40);
      const counters = await emu.admin<{ rateLimited: number }>('GET', '/counters');
      expect(counters.rateLimited).toBe(0);
      // No more than the quota in any emulated minute; the two workers shared the submits.
      expect(busiestWindow(accepted, WINDOW_MS)).toBeLessThanOrEqual(30);
      expect((await submitWorkers(handles)).size).toBe(2);
      await recordHistory(handles[0], 'mediaGeneration-submit-quota-queue-1.3');
    });
  }, 120_000);

  it('a 429 with Retry-After slows the shared limit and holds every worker; configuration overrides the list', async () => {
    // Configured far above what the platform allows: the 429s must teach every worker. The demand is over four
    // times the quota, so 429s keep coming after the first one's hold (a first 429 from a quiet state only holds).
    await setQuota(10);
    const platform = emu.client();
    const env = {
      RATE_LIMIT_QUOTAS: JSON.stringify({ 'text-to-video': { perMinute: 200 } }),
      RATE_LIMIT_SYNC_SECONDS: '0.5',
    };
    await withTwoWorkers('slowed', { platform, env }, async (a) => {
      const before = await queueLimit(a.client, a.taskQueue);
      expect(before.rps).toBeCloseTo(AdaptivePacing.targetRps(200, WINDOW_MS, 1), 3);

      // A burst over the quota: the first 429 sets a hold (its Retry-After) in the shared state.
      const burst = await startGenerations(a, 30);
      await waitFor(
        async () => ((await queueLimit(a.client, a.taskQueue)).state?.holdUntil ?? 0) > Date.now() + 1_500,
        30_000,
        'a hold in the shared state',
      );
      // Submits started during the hold are held by both workers, not sent.
      const during = await startGenerations(a, 12);
      const handles = [...burst, ...during];
      // Read while the submits still queue: a slowed pace steps back up once no 429 came for a while.
      await waitFor(
        async () => {
          const now = await queueLimit(a.client, a.taskQueue);
          return (now.state?.factor ?? 1) < 1 && (now.rps ?? Infinity) < before.rps!;
        },
        60_000,
        'a slower shared pace',
      );
      const results = await Promise.all(handles.map((h) => h.result()));
      expect(results.every((r) => r.generations.at(-1)?.status === 'TASK_STATUS_SUCCEED')).toBe(true);
      const held = (s: { error?: { message: string } }) =>
        s.error?.message.includes('not sent: the shared rate limit holds') ?? false;
      const attempts = results.flatMap((r) => r.submissions);
      const met429 = attempts.filter((s) => s.error?.message.includes('HTTP 429')).length;
      expect(met429).toBeGreaterThan(0);
      const counters = await emu.admin<{ rateLimited: number }>('GET', '/counters');
      expect(counters.rateLimited).toBe(met429);
      const heldFirst = during.filter((_, i) => held(results[burst.length + i].submissions[0]));
      expect(heldFirst.length).toBeGreaterThan(0);
      // Both workers held back a first attempt: the hold reached the one that never met the 429 too.
      expect((await submitWorkers(heldFirst, true)).size).toBe(2);
      const mostAttempts = results.reduce(
        (best, r, i) => (r.submissions.length > results[best].submissions.length ? i : best),
        0,
      );
      await recordHistory(handles[mostAttempts], 'mediaGeneration-submit-quota-queue-held-back-1.3');
    });
  }, 180_000);

  it('`starter quotas` shows each quota and the pace the workers share, and an operator’s own limit', async () => {
    await setQuota(30);
    await withWorker(
      'quotas',
      async ({ client, taskQueue, namespace }) => {
        const quotas = () =>
          runNode(
            'starter.js',
            ['quotas'],
            cleanEnv({
              TEMPORAL_ADDRESS: testEnv('temporalAddress'),
              TEMPORAL_NAMESPACE: namespace,
              TEMPORAL_TASK_QUEUE: taskQueue,
              PLATFORM_BASE_URL: emu.url,
              PLATFORM_API_KEY: DEV_API_KEY,
              RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_MS / 1000),
            }),
          );
        const run = await quotas();
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        // The worker paced for the one partition the dev server gives each queue, and the command says so.
        const rps = AdaptivePacing.targetRps(30, WINDOW_MS, 1);
        expect(run.stdout).toContain(`Paid submits on task queue ${taskQueue}`);
        expect(run.stdout).toContain(`quota: RPM of ${T2V_MODEL}: 30 per minute (quota list)`);
        expect(run.stdout).toContain(
          `pace:  ${rps.toFixed(3)} submits/s (${(rps * 6).toFixed(1)} per quota window), full pace; 0 waiting` +
            `  [queue ${quotaTaskQueue(taskQueue, 'text-to-video')}, 1 partition]`,
        );
        expect(run.stdout).toContain('quota: RPM of vendor-v3.0-std-i2v: 60 per minute (quota list, tier T5)');

        // An operator's limit (set by hand, as `temporal task-queue config set` does) is shown as such.
        await client.workflowService.updateTaskQueueConfig({
          namespace,
          taskQueue: quotaTaskQueue(taskQueue, 'text-to-video'),
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          updateQueueRateLimit: { rateLimit: { requestsPerSecond: 0.5 }, reason: 'incident 42' },
        });
        expect((await quotas()).stdout).toContain('0.500 submits/s (3.0 per quota window), set by an operator');
      },
      { platform: emu.client() },
    );
  }, 120_000);
});
