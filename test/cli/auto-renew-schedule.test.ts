// `schedule create autoRenew --member … --before 72h` as users run it: the built starter makes a
// Temporal Schedule on the real dev server, and its run renews the member's expiring instance on the
// real worker against an emulator of this file's own.
import { type AutoRenewResult, WorkflowType } from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { autoRenew } from '../../src/operations/autoRenew/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { runStarter, waitFor } from '../helpers/processes';
import { emulatorPlatform, uniqueId, withWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());

const cli = runStarter;

describe('schedule create autoRenew', () => {
  it('creates a schedule whose run renews the member’s instance that expires within the window', () =>
    withWorker(
      'auto-renew-schedule',
      async ({ client, taskQueue }) => {
        const memberId = uniqueId('member-sched');
        const instanceId = uniqueId('inst-sched');
        await emulator.admin('POST', '/fixtures', {
          members: [{ id: memberId, name: memberId, remaining: 100_000 }],
          apiKeys: [{ key: DEV_API_KEY, id: `key-${memberId}`, name: memberId, memberId }],
          instances: [
            { id: instanceId, status: 'running', billingMode: 'subscription', expiresInDays: 2, memberId },
            { id: uniqueId('inst-later'), status: 'running', billingMode: 'subscription', expiresInDays: 9, memberId },
          ],
        });
        const created = await cli(
          ['schedule', 'create', 'autoRenew', '--member', memberId, '--before', '72h', '--cost-per-month', '5000'],
          taskQueue,
        );
        expect(created.stderr).toBe('');
        expect(created.code).toBe(0);
        const scheduleId = `autoRenew-${memberId}`;
        expect(created.stdout).toContain(
          `Created schedule ${scheduleId}: every 6h, overlap skip. Each run renews member ${memberId}'s ` +
            `instances that expire within 259200s, budget-gated, on task queue ${taskQueue}.`,
        );
        try {
          expect((await cli(['schedule', 'trigger', scheduleId], taskQueue)).code).toBe(0);
          const schedule = client.schedule.getHandle(scheduleId);
          await waitFor(async () => (await schedule.describe()).info.recentActions.length >= 1, 30_000, 'a run');
          const [run] = (await schedule.describe()).info.recentActions;
          const handle = client.workflow.getHandle<typeof autoRenew>(run.action.workflow.workflowId);
          const result: AutoRenewResult = await handle.result();
          expect(result.renewed.map((r) => r.instanceId)).toEqual([instanceId]);
          expect(result.skipped).toHaveLength(1);
          expect((await handle.describe()).type).toBe(WorkflowType.autoRenew);

          const described = await cli(['schedule', 'describe', scheduleId], taskQueue);
          expect(described.stdout).toContain(`action:     autoRenew on task queue ${taskQueue}, member ${memberId}`);
          expect(described.stdout).toContain('Completed: renewed 1, skipped 1, refused by budget 0, failed 0');
        } finally {
          expect((await cli(['schedule', 'delete', scheduleId], taskQueue)).code).toBe(0);
        }
      },
      { platform: emulatorPlatform(emulator.url) },
    ));

  it('refuses a bad window before creating anything, naming the flag', async () => {
    const bad = await cli(['schedule', 'create', 'autoRenew', '--member', 'm', '--before', 'soon'], 'unused-queue');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--before must be a duration such as 30s, 5m, 1h or 1h30m, not "soon".');
  });
});
