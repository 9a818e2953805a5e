// autoRenew end to end: real Temporal dev server, real worker, an emulator of this file's own (whose
// instances and members the tests set). Each test has members of its own: a member's budget ledger is
// one workflow per member on the shared server.
import type { Client } from '@temporalio/client';
import {
  type AutoRenewResult,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  FailureType,
  WorkflowType,
} from '@platform-ops/client';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { autoRenew } from '../../src/operations/autoRenew/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { emulatorPlatform, eventTypes, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

const COST_PER_MONTH = 10_000;
const MONTH_S = 30 * 86_400;
const BEFORE_72H = 72 * 3_600;

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());

/** A member with `remaining` budget, and one with none, owning the given instances (by suffix). */
async function members(instances: { id: string; owner: 'rich' | 'broke'; expiresInDays?: number; payg?: boolean }[]) {
  const rich = uniqueId('member-rich');
  const broke = uniqueId('member-broke');
  await emulator.admin('POST', '/fixtures', {
    members: [
      { id: rich, name: rich, remaining: 500_000 },
      { id: broke, name: broke, remaining: 0 },
    ],
    apiKeys: [{ key: DEV_API_KEY, id: `key-${rich}`, name: rich, userId: `user-${rich}`, memberId: rich }],
    instances: instances.map((i) => ({
      id: i.id,
      status: 'running',
      memberId: i.owner === 'rich' ? rich : broke,
      ...(i.payg
        ? { billingMode: 'payAsYouGo', endTime: -1 }
        : { billingMode: 'subscription', expiresInDays: i.expiresInDays }),
    })),
  });
  return { rich, broke };
}

const renewalsPaid = async (instanceId: string) =>
  (await emulator.admin<{ paid: { byRoute: Record<string, Record<string, number>> } }>('GET', '/counters')).paid.byRoute
    .renewInstance?.[instanceId] ?? 0;
const endTime = async (instanceId: string) =>
  Number((await emulatorPlatform(emulator.url).getInstance({ instanceId })).endTime);

const run = (client: Client, taskQueue: string, memberId: string, name = 'auto-renew') =>
  client.workflow.start<typeof autoRenew>(WorkflowType.autoRenew, {
    taskQueue,
    workflowId: uniqueId(name),
    args: [{ memberId, beforeSeconds: BEFORE_72H, costPerMonth: COST_PER_MONTH }],
  });

const ids = (list: { instanceId: string }[]) => list.map((e) => e.instanceId).sort();

const withAutoRenewWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

describe('autoRenew', () => {
  it('renews only what expires within the window, and a second run for the same expiry renews nothing', () =>
    withAutoRenewWorker('auto-renew', async ({ client, taskQueue }) => {
      const soon = uniqueId('inst-soon');
      const later = uniqueId('inst-later');
      const payg = uniqueId('inst-payg');
      const { rich } = await members([
        { id: soon, owner: 'rich', expiresInDays: 1 },
        { id: later, owner: 'rich', expiresInDays: 10 },
        { id: payg, owner: 'rich', payg: true },
        { id: uniqueId('inst-other'), owner: 'broke', expiresInDays: 1 },
      ]);
      const before = await endTime(soon);
      const laterBefore = await endTime(later);

      const first = await run(client, taskQueue, rich);
      const result: AutoRenewResult = await first.result();
      expect(result).toMatchObject({ memberId: rich, listed: 3, truncated: false, costPerRenewal: COST_PER_MONTH });
      expect(ids(result.renewed)).toEqual([soon]);
      expect(result.renewed[0]).toMatchObject({ endTimeBefore: before, endTimeAfter: before + MONTH_S });
      expect(result.renewed[0].workflowId).toBe(`autoRenew:${rich}:${soon}:${before}`);
      expect(ids(result.skipped)).toEqual([later, payg].sort());
      expect(result.refusedByBudget).toEqual([]);
      expect(result.failed).toEqual([]);
      expect(await renewalsPaid(soon)).toBe(1);
      expect(await renewalsPaid(later)).toBe(0);
      expect(await endTime(later)).toBe(laterBefore);
      await recordHistory(first, 'autoRenew-renewed');

      const second = await (await run(client, taskQueue, rich, 'auto-renew-again')).result();
      expect(second.renewed).toEqual([]);
      expect(second.skipped.find((s) => s.instanceId === soon)?.reason).toMatch(/^not due: expires/);
      expect(await renewalsPaid(soon)).toBe(1);
      expect(await endTime(soon)).toBe(before + MONTH_S);

      // The reservation was given back after the renewal: the ledger holds nothing.
      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(rich)).query(budgetLedgerStateQuery);
      expect(ledger).toMatchObject({ outstanding: 0, totals: { admitted: 1, released: 1 } });
    }));

  it('never renews one expiry twice, even when two runs overlap', () =>
    withAutoRenewWorker('auto-renew-overlap', async ({ client, taskQueue }) => {
      const a = uniqueId('inst-a');
      const b = uniqueId('inst-b');
      const { rich } = await members([
        { id: a, owner: 'rich', expiresInDays: 1 },
        { id: b, owner: 'rich', expiresInDays: 2 },
      ]);
      const before = { a: await endTime(a), b: await endTime(b) };
      // Both read the list before either renews: each finds both instances due for the same expiry.
      const runs = await Promise.all([
        run(client, taskQueue, rich, 'overlap-1'),
        run(client, taskQueue, rich, 'overlap-2'),
      ]);
      const results = await Promise.all(runs.map((r) => r.result()));
      const renewed = results.flatMap((r) => ids(r.renewed)).sort();
      expect(renewed).toEqual([a, b].sort());
      // The other run's look at each: skipped (already running, or the expiry moved), never renewed.
      const skipped = results.flatMap((r) => r.skipped);
      expect(ids(skipped)).toEqual([a, b].sort());
      for (const s of skipped) expect(s.reason).toMatch(/already running|already renewed|not due/);
      expect(await renewalsPaid(a)).toBe(1);
      expect(await renewalsPaid(b)).toBe(1);
      expect(await endTime(a)).toBe(before.a + MONTH_S);
      expect(await endTime(b)).toBe(before.b + MONTH_S);
    }));

  it('renews nothing and charges nothing for a member without budget', () =>
    withAutoRenewWorker('auto-renew-broke', async ({ client, taskQueue }) => {
      const inst = uniqueId('inst-broke');
      const { broke } = await members([{ id: inst, owner: 'broke', expiresInDays: 1 }]);
      const before = await endTime(inst);
      const handle = await run(client, taskQueue, broke);
      const result = await handle.result();
      expect(result.renewed).toEqual([]);
      expect(ids(result.refusedByBudget)).toEqual([inst]);
      expect(result.refusedByBudget[0].reason).toMatch(/budget does not cover 10000/);
      expect(await renewalsPaid(inst)).toBe(0);
      expect(await endTime(inst)).toBe(before);
      expect(await emulator.member(broke)).toMatchObject({ remaining: 0, spent: 0 });
      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(broke)).query(budgetLedgerStateQuery);
      expect(ledger).toMatchObject({ outstanding: 0, totals: { admitted: 0, refused: 1 } });
      await recordHistory(handle, 'autoRenew-refused-by-budget');
    }));

  it('fails fast on bad input, naming each field, with nothing scheduled', () =>
    withAutoRenewWorker('auto-renew-bad', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.autoRenew, {
        taskQueue,
        workflowId: uniqueId('auto-renew-bad'),
        args: [{ memberId: 'a:b', beforeSeconds: 30 * 86_400, months: 0 }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('memberId: must have no spaces or colons');
      expect(failure.message).toContain('beforeSeconds: must be at most 2419200');
      expect(failure.message).toContain('months: must be greater than 0');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
    }));
});
