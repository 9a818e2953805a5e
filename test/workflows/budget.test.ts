// budgetGatedJob and the per-member budget ledger, on the real dev server and an emulator of this
// file's own (whose budgets the tests set). Each test pays with a member of its own: the ledger is one
// workflow per member, and the emulator charges the member of the API key the worker uses.
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  type BudgetGatedJobInput,
  budgetJobProgressQuery,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  FailureType,
  recheckBudgetSignal,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { budgetGatedJob } from '../../src/operations/budgetGatedJob/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { waitFor } from '../helpers/processes';
import { emulatorPlatform, eventTypes, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

/**
 * A 5 s text-to-video: 5 × 1120 in the default price table, and what the emulator charges. Without
 * re-generations, so it is also what its reservation covers (a reservation covers every possible
 * charge: see the test of the default below).
 */
const VIDEO_COST = 5_600;
const video = (prompt: string): BudgetGatedJobInput['job'] => ({
  workflowType: 'mediaGeneration',
  input: { operation: 'text-to-video', request: { prompt, duration: 5 }, regeneration: { maxRegenerations: 0 } },
});

/** A job that costs the platform nothing and ends fast: the budget is what the test is about. */
const REPORT: BudgetGatedJobInput['job'] = {
  workflowType: 'billingReport',
  input: { cycleType: 'Day', startTime: 1_767_225_600, endTime: 1_767_225_600 + 86_400 },
};

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());

const submissions = async () =>
  (await emulator.admin<{ submissions: { total: number } }>('GET', '/counters')).submissions.total;

/** Starts a budgetGatedJob on the test's worker, under an id of its own. */
const startJob = (
  { client, taskQueue }: { client: Client; taskQueue: string },
  name: string,
  input: BudgetGatedJobInput,
) =>
  client.workflow.start<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
    taskQueue,
    workflowId: uniqueId(name),
    args: [input],
  });

const withBudgetWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

async function statusAttribute(handle: WorkflowHandle): Promise<string | undefined> {
  const d = await handle.describe();
  return d.typedSearchAttributes.get(SearchAttributes.status);
}

describe('budgetGatedJob', () => {
  it('reserves what the job can be charged at most: every re-generation and possibly paid resubmit', () =>
    withBudgetWorker('budget-covers', async ({ client, taskQueue }) => {
      // A budget that one video covers, but not the re-generations it may pay for.
      const memberId = await emulator.freshMember(2 * VIDEO_COST);
      const request = { prompt: 'a storm [emulator:duration=300]', duration: 5 };
      const skipped = await startJob({ client, taskQueue }, 'budget-covers', {
        memberId,
        onInsufficient: 'skip',
        job: { workflowType: 'mediaGeneration', input: { operation: 'text-to-video', request } },
      }).then((h) => h.result());
      expect(skipped.outcome).toBe('Skipped');
      expect(skipped.admission).toMatchObject({
        cost: 3 * VIDEO_COST,
        costBreakdown: '(5 s × 1120 (text-to-video)) × 3 (3 generations)',
      });
      const resubmitting = await startJob({ client, taskQueue }, 'budget-covers-resubmit', {
        memberId,
        onInsufficient: 'skip',
        job: {
          workflowType: 'mediaGeneration',
          input: {
            operation: 'text-to-video',
            request,
            regeneration: { maxRegenerations: 1 },
            submission: { onAmbiguous: 'resubmit', maxAttempts: 3 },
          },
        },
      }).then((h) => h.result());
      expect(resubmitting.admission).toMatchObject({ cost: 6 * VIDEO_COST, decision: 'refused' });
      expect(resubmitting.admission.costBreakdown).toMatch(/× 6 \(2 generations × 3 possibly paid submits each\)$/);
    }));

  it('admits exactly the jobs the budget covers when they start together', () =>
    withBudgetWorker('budget-concurrent', async ({ client, taskQueue }) => {
      const admitted = 3;
      const memberId = await emulator.freshMember(admitted * VIDEO_COST + 1_000);
      // What the ledger exists for: six checks at once of the platform's budget all say "enough".
      const platform = emulatorPlatform(emulator.url);
      const direct = await Promise.all(
        Array.from({ length: 6 }, () => platform.checkMemberBudget({ member_id: memberId, cost: VIDEO_COST })),
      );
      expect(direct.every((r) => r.enough)).toBe(true);
      const before = await submissions();

      const handles = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          startJob({ client, taskQueue }, `budget-concurrent-${i}`, {
            memberId,
            // Long enough (4 s) that every admission is decided while the admitted ones still run.
            job: video(`a fox ${i} [emulator:duration=4000]`),
          }),
        ),
      );
      const settled = await Promise.allSettled(handles.map((h) => h.result()));
      const completed = settled.filter((s) => s.status === 'fulfilled');
      expect(completed).toHaveLength(admitted);
      for (const s of completed) {
        expect(s.value.outcome).toBe('Completed');
        expect(s.value.admission.reserved).toBe(VIDEO_COST);
        expect(s.value.admission.costSource).toBe('priceTable');
        expect(s.value.released).toBe(true);
      }
      const failures = await Promise.all(
        handles.filter((_, i) => settled[i].status === 'rejected').map((h) => failureOf(h.result())),
      );
      expect(failures).toHaveLength(6 - admitted);
      for (const f of failures) {
        expect(f.type).toBe(FailureType.BudgetExceeded);
        expect(f.nonRetryable).toBe(true);
      }
      expect((await submissions()) - before).toBe(admitted);
      const member = await emulator.member(memberId);
      expect(member.remaining).toBe(1_000); // charged for exactly the admitted jobs, never below zero

      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(memberId)).query(budgetLedgerStateQuery);
      expect(ledger.outstanding).toBe(0);
      expect(ledger.totals).toMatchObject({ admitted, refused: 6 - admitted, released: admitted });
      const done = handles[settled.findIndex((s) => s.status === 'fulfilled')];
      // Priced in its first workflow task (a local activity): the reservation and the release are its
      // only activity tasks.
      const events = await eventTypes(done);
      expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(2);
      expect(events).toContain('MARKER_RECORDED');
      await recordHistory(done, 'budgetGatedJob-completed');
    }));

  it('fails as BudgetExceeded, or ends as Skipped, without submitting anything', () =>
    withBudgetWorker('budget-refused', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(1_000);
      const before = await submissions();
      const failing = await startJob({ client, taskQueue }, 'budget-fail', { memberId, job: video('a heron') });
      const failure = await failureOf(failing.result());
      expect(failure.type).toBe(FailureType.BudgetExceeded);
      expect(failure.message).toMatch(/budget does not cover 5600 \(0\.5600 USD\) on top of 0 reserved/);

      const skipping = await startJob({ client, taskQueue }, 'budget-skip', {
        memberId,
        cost: 2_000,
        onInsufficient: 'skip',
        job: video('a heron'),
      });
      const skipped = await skipping.result();
      expect(skipped.outcome).toBe('Skipped');
      expect(skipped.reason).toMatch(/does not cover 2000/);
      expect(skipped.admission).toMatchObject({ decision: 'refused', reserved: 0, costSource: 'input', checks: 1 });
      expect(skipped.job).toBeUndefined();
      expect(await statusAttribute(skipping)).toBe('SKIPPED');
      expect((await submissions()) - before).toBe(0);
      await recordHistory(skipping, 'budgetGatedJob-skipped');
    }));

  it('waits for budget (WAITING_FOR_BUDGET), and a recheckBudget signal after a top-up admits it at once', () =>
    withBudgetWorker('budget-wait', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(1_000);
      const handle = await startJob({ client, taskQueue }, 'budget-wait', {
        memberId,
        onInsufficient: 'wait',
        // Re-checks on its own only every 5 minutes: the signal is what admits it.
        wait: { timeoutSeconds: 3_600, initialIntervalSeconds: 300 },
        job: video('an owl [emulator:duration=2000]'),
      });
      await waitFor(async () => (await statusAttribute(handle)) === 'WAITING_FOR_BUDGET', 15_000, 'the wait');
      const waiting = await handle.query(budgetJobProgressQuery);
      expect(waiting).toMatchObject({ status: 'WAITING_FOR_BUDGET', checks: 1, cost: VIDEO_COST });
      expect(waiting.lastRefusal).toMatchObject({ checkedCost: VIDEO_COST, outstanding: 0 });

      await emulator.admin('PUT', `/members/${memberId}/budget`, { remaining: 10_000 });
      const signalledAt = Date.now();
      await handle.signal(recheckBudgetSignal);
      const result = await handle.result();
      expect(Date.now() - signalledAt).toBeLessThan(20_000);
      expect(result.outcome).toBe('Completed');
      expect(result.admission.decision).toBe('admitted');
      expect(result.admission.checks).toBeGreaterThanOrEqual(2);
      expect(result.admission.waitedSeconds).toBeGreaterThan(0);
      expect((await emulator.member(memberId)).remaining).toBe(10_000 - VIDEO_COST);
      await recordHistory(handle, 'budgetGatedJob-waited');
    }));

  it("ends as Rejected below the decision gate's threshold, submitting nothing, and runs the job above it", () =>
    withBudgetWorker('budget-gate', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const before = await submissions();
      const gated = (p: number) =>
        startJob({ client, taskQueue }, 'budget-gate', {
          memberId,
          job: video('a kitten in a garden [emulator:duration=1000]'),
          gate: { question: `Is this safe for all audiences? [emulator:p=${p}]`, threshold: 0.5 },
        });
      const rejecting = await gated(0.2);
      const rejected = await rejecting.result();
      expect(rejected.outcome).toBe('Rejected');
      expect(rejected.gate).toMatchObject({ passOption: 'yes', threshold: 0.5, passed: false });
      expect(rejected.gate!.probability).toBeCloseTo(0.2, 5);
      expect(rejected.gate!.probabilities).toHaveProperty('no');
      expect(rejected.reason).toMatch(/below the threshold 0\.5; the job was not submitted/);
      expect(rejected.job).toBeUndefined();
      // The gate is a billed call: reserved with the job, and given back with it.
      expect(rejected.admission.gateCost).toBeGreaterThan(0);
      expect(rejected.admission.reserved).toBe(VIDEO_COST + rejected.admission.gateCost);
      expect(rejected.released).toBe(true);
      expect((await submissions()) - before).toBe(0);
      expect(await statusAttribute(rejecting)).toBe('REJECTED');
      await recordHistory(rejecting, 'budgetGatedJob-rejected');

      const accepted = await (await gated(0.9)).result();
      expect(accepted.outcome).toBe('Completed');
      expect(accepted.gate).toMatchObject({ passed: true });
      expect(accepted.gate!.probability).toBeCloseTo(0.9, 5);
      expect((accepted.job?.result as { taskId?: string }).taskId).toBeTruthy();
      expect((await submissions()) - before).toBe(1);
      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(memberId)).query(budgetLedgerStateQuery);
      expect(ledger).toMatchObject({ outstanding: 0, totals: { admitted: 2, released: 2 } });
    }));

  it("keeps the waiting job's history flat however often it re-checks, and skips when the wait times out", () =>
    withBudgetWorker('budget-wait-timeout', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(0);
      const handle = await startJob({ client, taskQueue }, 'budget-wait-timeout', {
        memberId,
        cost: 500,
        onInsufficient: 'wait',
        wait: { timeoutSeconds: 8, initialIntervalSeconds: 1, maxIntervalSeconds: 1, onTimeout: 'skip' },
        job: { workflowType: 'renewInstance', input: { instanceId: 'inst-demo-1', months: 1 } },
      });
      const result = await handle.result();
      expect(result.outcome).toBe('Skipped');
      expect(result.reason).toMatch(/after waiting \d+ s \(\d+ checks\)/);
      expect(result.admission.checks).toBeGreaterThanOrEqual(6);
      expect(result.admission.waitedSeconds).toBeGreaterThanOrEqual(7);
      const events = await eventTypes(handle);
      // Two activities (the first check, the wait) whatever the number of checks.
      expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(2);
      expect(events.length).toBeLessThan(30);
      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(memberId)).query(budgetLedgerStateQuery);
      expect(ledger.totals.refused).toBe(result.admission.checks);
      expect(ledger.reservations).toHaveLength(0);
    }));

  it('tells every waiting job of a member to re-check when its ledger gets recheckBudget', () =>
    withBudgetWorker('budget-fanout', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100);
      const start = (i: number) =>
        startJob({ client, taskQueue }, `budget-fanout-${i}`, {
          memberId,
          cost: 1_000,
          onInsufficient: 'wait',
          wait: { timeoutSeconds: 3_600, initialIntervalSeconds: 600 },
          job: REPORT,
        });
      const handles = [await start(1), await start(2)];
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(memberId));
      const waiters = () =>
        ledger.query(budgetLedgerStateQuery).then(
          (state) => state.waiting.length,
          () => 0, // the first check starts the ledger
        );
      await waitFor(async () => (await waiters()) === 2, 15_000, 'two waiting jobs');

      await emulator.admin('PUT', `/members/${memberId}/budget`, { remaining: 2_500 });
      await ledger.signal(recheckBudgetSignal);
      const results = await Promise.all(handles.map((h) => h.result()));
      expect(results.map((r) => r.outcome)).toEqual(['Completed', 'Completed']);
      // The second admission covered both: its check asked for 1000 on top of the first's 1000.
      expect(results.map((r) => r.admission.checkedCost).sort()).toEqual([1_000, 2_000]);
    }));

  it.each([
    ['an unknown job type', { job: { workflowType: 'budgetLedger', input: {} } }, 'job.workflowType: must be one of'],
    [
      "a job input that breaks the job's own rules",
      { job: { workflowType: 'mediaGeneration', input: { operation: 'text-to-video', request: { duration: 99 } } } },
      'job.input.request.duration: must be at most 15',
    ],
    ['a negative cost', { cost: -1, job: REPORT }, 'cost: must be at least 0'],
    ['wait options with the fail policy', { wait: { timeoutSeconds: 60 }, job: REPORT }, 'wait: only applies when'],
    [
      'a gate threshold above 1',
      { job: video('x'), gate: { question: 'ok?', threshold: 2 } },
      'gate.threshold: must be at most 1',
    ],
    [
      'a gate with no content to judge',
      { job: REPORT, gate: { question: 'ok?', threshold: 0.5 } },
      'gate.state: is required for a billingReport job',
    ],
    [
      'a pass option that is not an option',
      { job: video('x'), gate: { question: 'ok?', threshold: 0.5, passOption: 'maybe' } },
      'gate.passOption: must be one of the options ("yes", "no")',
    ],
  ])('refuses %s as InvalidInput naming the field, before anything runs', (what, patch, message) =>
    withBudgetWorker('budget-invalid', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.budgetGatedJob, {
        taskQueue,
        workflowId: uniqueId('budget-invalid'),
        args: [{ memberId: 'member-nobody', ...patch }],
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain(message);
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      if (what === 'a negative cost') await recordHistory(handle, 'budgetGatedJob-invalid');
    }),
  );

  it('asks for a cost the price table cannot give, before checking or submitting anything', () =>
    withBudgetWorker('budget-unpriced', async ({ client, taskQueue }) => {
      const handle = await startJob({ client, taskQueue }, 'budget-unpriced', {
        memberId: 'member-nobody',
        job: { workflowType: 'batchJob', input: { endpoint: '/v1/completions', inputFileId: 'file-1' } },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toMatch(/^cost: is required here: the price table has no batchJob\.perRequest/);
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId('member-nobody'));
      await expect(ledger.describe()).rejects.toThrow(/not found/);
    }));

  it("fails with the job's own failure type, and gives the reservation back", () =>
    withBudgetWorker('budget-child-fails', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const handle = await startJob({ client, taskQueue }, 'budget-child-fails', {
        memberId,
        job: video('a storm [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=500]'),
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.GenerationFailed);
      expect(failure.message).toContain('ILLEGAL_PROMPT');
      const ledger = await client.workflow.getHandle(budgetLedgerWorkflowId(memberId)).query(budgetLedgerStateQuery);
      expect(ledger).toMatchObject({ outstanding: 0, totals: { admitted: 1, released: 1 } });
      expect((await emulator.member(memberId)).remaining).toBe(100_000); // a failed task is not charged
    }));

  it('gives the reservation back when cancelled while its job runs, and the job is cancelled too', () =>
    withBudgetWorker('budget-cancel', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(100_000);
      const handle = await startJob({ client, taskQueue }, 'budget-cancel', {
        memberId,
        job: video('a long take [emulator:duration=600000]'),
      });
      await waitFor(async () => (await statusAttribute(handle)) === 'RUNNING_JOB', 15_000, 'the job to run');
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(memberId));
      expect((await ledger.query(budgetLedgerStateQuery)).outstanding).toBe(VIDEO_COST);
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const child = await client.workflow.getHandle(`${handle.workflowId}/mediaGeneration`).describe();
      expect(child.status.name).toBe('CANCELLED');
      expect(await ledger.query(budgetLedgerStateQuery)).toMatchObject({ outstanding: 0, totals: { released: 1 } });
    }));
});
