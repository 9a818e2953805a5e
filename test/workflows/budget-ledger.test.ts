// The budget ledger on its own, driven as the job activities drive it (Updates through a client), on
// the real dev server and an emulator of this file's own: idempotent reservations, validators that
// keep bad requests out of the history, continue-as-new that loses nothing, and reclaiming the
// reservation of a job that died without releasing it.
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  type BudgetLedgerInput,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  FailureType,
  releaseBudgetUpdate,
  reserveBudgetBatchUpdate,
  reserveBudgetUpdate,
  WorkflowType,
} from '@platform-ops/client';
import type { budgetGatedJob } from '../../src/operations/budgetGatedJob/workflows';
import type { budgetLedger } from '../../src/operations/budgetLedger/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { waitFor } from '../helpers/processes';
import { emulatorPlatform, eventTypes, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());

const withLedgerWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

async function startLedger(client: Client, taskQueue: string, input: BudgetLedgerInput) {
  return client.workflow.start<typeof budgetLedger>(WorkflowType.budgetLedger, {
    taskQueue,
    workflowId: budgetLedgerWorkflowId(input.memberId),
    args: [input],
  });
}

describe('budgetLedger', () => {
  it('answers a repeated reservation and release idempotently, and keeps bad requests out of its history', () =>
    withLedgerWorker('ledger-idempotent', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(10_000);
      const ledger = await startLedger(client, taskQueue, { memberId });
      const request = { reservationId: 'job-a@1', cost: 4_000, holderWorkflowId: 'job-a' };
      const first = await ledger.executeUpdate(reserveBudgetUpdate, { args: [request] });
      expect(first).toMatchObject({ admitted: true, alreadyHeld: false, checked: true, checkedCost: 4_000 });
      const again = await ledger.executeUpdate(reserveBudgetUpdate, { args: [request] });
      expect(again).toMatchObject({ admitted: true, alreadyHeld: true, checked: false, cost: 4_000 });
      // Another job is checked on top of what is held: 4000 + 7000 > 10000.
      const other = await ledger.executeUpdate(reserveBudgetUpdate, {
        args: [{ reservationId: 'job-b@1', cost: 7_000, holderWorkflowId: 'job-b' }],
      });
      expect(other).toMatchObject({ admitted: false, outstanding: 4_000, checkedCost: 11_000 });

      const before = (await eventTypes(ledger)).length;
      const refusal = await ledger
        .executeUpdate(reserveBudgetUpdate, { args: [{ reservationId: '', cost: -5, holderWorkflowId: 'job-c' }] })
        .catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(String((refusal as WorkflowUpdateFailedError).cause?.message)).toMatch(
        /reservationId: must not be empty; cost: must be at least 0/,
      );
      expect((await eventTypes(ledger)).length).toBe(before);

      expect(await ledger.executeUpdate(releaseBudgetUpdate, { args: [{ reservationId: 'job-a@1' }] })).toEqual({
        released: true,
        cost: 4_000,
      });
      expect(await ledger.executeUpdate(releaseBudgetUpdate, { args: [{ reservationId: 'job-a@1' }] })).toEqual({
        released: false,
      });
      // A late duplicate of the released reservation is not held again.
      expect(await ledger.executeUpdate(reserveBudgetUpdate, { args: [request] })).toMatchObject({ admitted: false });
      expect(await ledger.query(budgetLedgerStateQuery)).toMatchObject({
        outstanding: 0,
        reservations: [],
        totals: { admitted: 1, refused: 1, released: 1, reclaimed: 0 },
      });
    }));

  it('answers a batched reservation Update request by request, as an Update each would be answered', () =>
    withLedgerWorker('ledger-batch', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(10_000);
      const ledger = await startLedger(client, taskQueue, { memberId });
      const request = (job: string, cost: number) => ({ reservationId: `${job}@1`, cost, holderWorkflowId: job });
      const batch = (...requests: ReturnType<typeof request>[]) =>
        ledger.executeUpdate(reserveBudgetBatchUpdate, { args: [{ requests }] });

      // In the order sent: a is held, b does not fit on top of it, a again is the same answer, the
      // cheaper c still fits, and a free job needs no check.
      const first = await batch(
        request('a', 4_000),
        request('b', 7_000),
        request('a', 4_000),
        request('c', 5_000),
        request('free', 0),
      );
      expect(first.outcomes.map((o) => ('answer' in o ? o.answer : o))).toEqual([
        expect.objectContaining({ reservationId: 'a@1', admitted: true, outstanding: 0, checkedCost: 4_000 }),
        expect.objectContaining({ reservationId: 'b@1', admitted: false, outstanding: 4_000, checkedCost: 11_000 }),
        expect.objectContaining({ reservationId: 'a@1', admitted: true, outstanding: 0, checkedCost: 4_000 }),
        expect.objectContaining({ reservationId: 'c@1', admitted: true, outstanding: 4_000, checkedCost: 9_000 }),
        expect.objectContaining({ reservationId: 'free@1', admitted: true, checked: false }),
      ]);
      // Sent again (a retried activity): held ones answer alreadyHeld, nothing is held twice.
      const again = await batch(request('a', 4_000), request('c', 5_000));
      expect(again.outcomes).toEqual([
        { answer: expect.objectContaining({ admitted: true, alreadyHeld: true }) },
        { answer: expect.objectContaining({ admitted: true, alreadyHeld: true }) },
      ]);
      expect(await ledger.query(budgetLedgerStateQuery)).toMatchObject({
        outstanding: 9_000,
        totals: { admitted: 3, refused: 1 },
      });

      // A bad request refuses the whole Update before it enters the history.
      const before = (await eventTypes(ledger)).length;
      const refusal = await batch(request('d', 100), { ...request('e', 100), cost: -1 }).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(String((refusal as WorkflowUpdateFailedError).cause?.message)).toMatch(
        /requests\[1\]\.cost: must be at least 0/,
      );
      expect((await eventTypes(ledger)).length).toBe(before);
      // Checked in the task that took the requests in: no activity task per batch.
      expect(await eventTypes(ledger)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      await recordHistory(ledger, 'budgetLedger-checked-together', { runId: ledger.firstExecutionRunId });
    }));

  it("fails only the checked requests of a batch when the platform refuses the check, each with the platform's type", () =>
    withLedgerWorker('ledger-batch-unknown', async ({ client, taskQueue }) => {
      const ledger = await startLedger(client, taskQueue, { memberId: uniqueId('member-unknown') });
      const { outcomes } = await ledger.executeUpdate(reserveBudgetBatchUpdate, {
        args: [
          {
            requests: [
              { reservationId: 'paid@1', cost: 1_000, holderWorkflowId: 'paid' },
              { reservationId: 'free@1', cost: 0, holderWorkflowId: 'free' },
            ],
          },
        ],
      });
      expect(outcomes[0]).toEqual({
        failure: expect.objectContaining({ type: FailureType.NotFound, nonRetryable: true }),
      });
      expect(outcomes[1]).toEqual({ answer: expect.objectContaining({ admitted: true, checked: false }) });
    }));

  it('continues as new with its reservations, waiting jobs and totals', () =>
    withLedgerWorker('ledger-continue', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(1_000_000);
      const ledger = await startLedger(client, taskQueue, { memberId, continueAsNewAfterEvents: 60 });
      const firstRunId = ledger.firstExecutionRunId;
      const held = { reservationId: 'long-job@1', cost: 9_000, holderWorkflowId: 'long-job' };
      await ledger.executeUpdate(reserveBudgetUpdate, { args: [held] });
      // A job waiting for more than the budget: told to re-check when budget is freed, in any run.
      const waiter = { reservationId: 'big-job@1', cost: 5_000_000, holderWorkflowId: 'big-job', waiting: true };
      expect(await ledger.executeUpdate(reserveBudgetUpdate, { args: [waiter] })).toMatchObject({ admitted: false });
      let cycles = 0;
      while ((await client.workflow.getHandle(ledger.workflowId).describe()).runId === firstRunId) {
        await ledger.executeUpdate(reserveBudgetUpdate, {
          args: [{ reservationId: `short-job-${cycles}@1`, cost: 100, holderWorkflowId: `short-job-${cycles}` }],
        });
        cycles++;
        expect(cycles).toBeLessThan(40);
      }
      const state = await ledger.query(budgetLedgerStateQuery);
      expect(state.reservations).toHaveLength(cycles + 1);
      expect(state.reservations[0]).toMatchObject(held);
      expect(state.outstanding).toBe(9_000 + cycles * 100);
      expect(state.waiting).toEqual(['big-job']);
      expect(state.totals).toMatchObject({ admitted: cycles + 1, refused: 1 });
      // The new run holds the old run's reservations: the next admission is checked on top of them.
      const next = await ledger.executeUpdate(reserveBudgetUpdate, {
        args: [{ reservationId: 'after@1', cost: 1_000, holderWorkflowId: 'after' }],
      });
      expect(next).toMatchObject({ admitted: true, outstanding: state.outstanding });
      const release = { reservationId: held.reservationId };
      expect(await ledger.executeUpdate(releaseBudgetUpdate, { args: [release] })).toEqual({
        released: true,
        cost: 9_000,
      });
      await recordHistory(ledger, 'budgetLedger-continued-as-new', { runId: firstRunId });
    }));

  it('reclaims the reservation of a job that ended without releasing it', () =>
    withLedgerWorker('ledger-reclaim', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const ledger = await startLedger(client, taskQueue, { memberId, holderCheckSeconds: 1 });
      const job = await client.workflow.start<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
        taskQueue,
        workflowId: uniqueId('ledger-reclaim-job'),
        args: [
          {
            memberId,
            cost: 3_000,
            job: {
              workflowType: 'mediaGeneration',
              input: { operation: 'text-to-video', request: { prompt: 'slow [emulator:duration=600000]' } },
            },
          },
        ],
      });
      await waitFor(
        async () => (await ledger.query(budgetLedgerStateQuery)).outstanding === 3_000,
        15_000,
        'admission',
      );
      // Still running: its reservation stays through several holder checks.
      await new Promise((r) => setTimeout(r, 2_500));
      expect((await ledger.query(budgetLedgerStateQuery)).outstanding).toBe(3_000);

      await job.terminate('a test kills the job before it can release');
      await waitFor(async () => (await ledger.query(budgetLedgerStateQuery)).outstanding === 0, 15_000, 'reclaim');
      expect((await ledger.query(budgetLedgerStateQuery)).totals).toMatchObject({ admitted: 1, reclaimed: 1 });
    }));
});

describe("budgetLedger and a job's chain of runs", () => {
  it('moves a reservation to a reset or retried run of its job, and remembers a release by run', () =>
    withLedgerWorker('ledger-runs', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const ledger = await startLedger(client, taskQueue, { memberId });
      const held = { reservationId: 'job@first-run', cost: 4_000, holderWorkflowId: 'job', holderRunId: 'run-1' };
      expect(await ledger.executeUpdate(reserveBudgetUpdate, { args: [held] })).toMatchObject({ admitted: true });
      // A reset or retried run of the job asks again under its chain's id and holds it now.
      const again = await ledger.executeUpdate(reserveBudgetUpdate, { args: [{ ...held, holderRunId: 'run-2' }] });
      expect(again).toMatchObject({ admitted: true, alreadyHeld: true, cost: 4_000 });
      expect((await ledger.query(budgetLedgerStateQuery)).reservations).toEqual([
        expect.objectContaining({ ...held, holderRunId: 'run-2' }),
      ]);
      // Released by run 2 (it failed): a late duplicate from run 2 is not held again, but run 3 (the
      // job's retry) gets a reservation again.
      await ledger.executeUpdate(releaseBudgetUpdate, { args: [{ reservationId: held.reservationId }] });
      const late = await ledger.executeUpdate(reserveBudgetUpdate, { args: [{ ...held, holderRunId: 'run-2' }] });
      expect(late).toMatchObject({ admitted: false, checked: false });
      const retried = await ledger.executeUpdate(reserveBudgetUpdate, { args: [{ ...held, holderRunId: 'run-3' }] });
      expect(retried).toMatchObject({ admitted: true, alreadyHeld: false, checked: true });
    }));

  it("keeps a reservation while its job's current run runs, though the run that reserved has ended", () =>
    withLedgerWorker('ledger-chain', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const ledger = await startLedger(client, taskQueue, { memberId, holderCheckSeconds: 1 });
      // A "job" whose first run has ended and whose chain runs on (a reset or a retried run does the
      // same): here a ledger of another member, driven to continue as new by free reservations.
      const holder = await startLedger(client, taskQueue, {
        memberId: uniqueId('holder'),
        continueAsNewAfterEvents: 50,
      });
      for (
        let i = 0;
        (await client.workflow.getHandle(holder.workflowId).describe()).runId === holder.firstExecutionRunId;
        i++
      ) {
        expect(i).toBeLessThan(40);
        await holder.executeUpdate(reserveBudgetUpdate, {
          args: [{ reservationId: `free-${i}@1`, cost: 0, holderWorkflowId: `free-${i}` }],
        });
      }
      const request = {
        reservationId: `${holder.workflowId}@${holder.firstExecutionRunId}`,
        cost: 2_000,
        holderWorkflowId: holder.workflowId,
        holderRunId: holder.firstExecutionRunId,
      };
      expect(await ledger.executeUpdate(reserveBudgetUpdate, { args: [request] })).toMatchObject({ admitted: true });
      // Several holder checks: the run that reserved has ended, but its chain runs on.
      await new Promise((r) => setTimeout(r, 3_500));
      expect(await ledger.query(budgetLedgerStateQuery)).toMatchObject({
        outstanding: 2_000,
        totals: { reclaimed: 0 },
      });
      await client.workflow.getHandle(holder.workflowId).terminate('the job ends without releasing');
      await waitFor(async () => (await ledger.query(budgetLedgerStateQuery)).outstanding === 0, 15_000, 'reclaim');
      expect((await ledger.query(budgetLedgerStateQuery)).totals).toMatchObject({ reclaimed: 1 });
    }));
});
