// Fair shares of a quota and priority classes (docs/fairness.md), on the real dev server (fairness on,
// as DEV_SERVER_DYNAMIC_CONFIG sets it) and an emulator of this file's own, its quota paced at 1
// submit a second: a member's backlog does not hold another member's submits behind it, and a class
// kept waiting by a higher one moves up after `submission.priorityAgingMs`.
import type { Client } from '@temporalio/client';
import { type Handle, type MediaGenerationInput, type StartOptions, startWorkflow } from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { uniqueId, withWorker } from '../helpers/temporal';

const FAST = { minIntervalMs: 200, maxIntervalMs: 1_000 };
/** 6 submits per 6 s window (withWorker's RATE_LIMIT_WINDOW_SECONDS): one a second. */
const PACED = { RATE_LIMIT_QUOTAS: JSON.stringify({ 'text-to-video': { perMinute: 6 } }) };

let emu: TestEmulator;
let workerOptions: NonNullable<Parameters<typeof withWorker>[2]>;
beforeAll(async () => {
  emu = await startTestEmulator({ clockSpeed: 10 });
  workerOptions = { platform: emu.client(), env: PACED };
});
afterAll(() => emu.close());

function generations(
  client: Client,
  taskQueue: string,
  n: number,
  memberId: string,
  opts: Partial<StartOptions> = {},
  submission: Record<string, number> = {},
): Promise<Array<Handle<'mediaGeneration'>>> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const input = {
        operation: 'text-to-video',
        request: { prompt: `${memberId} ${i} [emulator:duration=500]`, duration: 5 },
        polling: FAST,
        memberId,
        submission,
      } as MediaGenerationInput;
      const { handle } = await startWorkflow(client, 'mediaGeneration', input, {
        taskQueue,
        workflowId: uniqueId(`fair-${memberId}`),
        ...opts,
      });
      return handle;
    }),
  );
}

/** When each run's accepted submit ended (epoch ms), in the order of `handles`. */
const acceptedAt = async (handles: Array<Handle<'mediaGeneration'>>) =>
  Promise.all(
    handles.map(async (h) => {
      const { submissions } = await h.result();
      return Date.parse(submissions.find((s) => s.outcome === 'accepted')!.at!);
    }),
  );

describe('fair shares of a quota', () => {
  it("sends a second member's submits beside the first one's backlog, not behind it", async () => {
    await withWorker(
      'fair',
      async ({ client, taskQueue }) => {
        const a = await generations(client, taskQueue, 12, 'member-backlog');
        const b = await generations(client, taskQueue, 3, 'member-small');
        const [aAt, bAt] = [await acceptedAt(a), await acceptedAt(b)];
        const lastOfB = Math.max(...bAt);
        // First in, first out, all 12 of A's would go first; in fair shares, B's 3 go among A's first few.
        expect(aAt.filter((t) => t < lastOfB).length).toBeLessThanOrEqual(6);
      },
      workerOptions,
    );
  }, 120_000);

  it('moves a bulk submit kept waiting by interactive ones up a class at a time, then sends it', async () => {
    await withWorker(
      'aging',
      async ({ client, taskQueue }) => {
        const interactive = await generations(client, taskQueue, 10, 'member-live', { priority: 'interactive' });
        const [bulk] = await generations(
          client,
          taskQueue,
          1,
          'member-backfill',
          { priority: 'bulk' },
          { priorityAgingMs: 2_000 },
        );
        const [bulkAt] = await acceptedAt([bulk]);
        const { submissions } = await bulk.result();
        // Two waits of 2 s (bulk → scheduled → interactive), never sent, then one accepted send.
        expect(submissions.map((s) => s.outcome)).toEqual(['refused', 'refused', 'accepted']);
        expect(submissions[0].error?.message).toBe('no turn on the quota yet');
        const scheduled = ((await bulk.fetchHistory()).events ?? [])
          .map((e) => e.activityTaskScheduledEventAttributes)
          .filter((a) => a?.activityType?.name === 'submitMediaTask');
        expect(scheduled.map((a) => [a?.priority?.priorityKey, a?.priority?.fairnessKey])).toEqual([
          [4, 'member-backfill'],
          [3, 'member-backfill'],
          [2, 'member-backfill'],
        ]);
        // Once interactive itself, it takes its fair share beside member-live's backlog.
        const liveAt = await acceptedAt(interactive);
        expect(liveAt.filter((t) => t > bulkAt).length).toBeGreaterThanOrEqual(2);
      },
      workerOptions,
    );
  }, 120_000);
});
