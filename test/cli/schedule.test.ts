// `schedule` and `budget` as users run them: Temporal Schedules whose runs are budgetGatedJobs, and a
// member's budget ledger, on the real dev server and an emulator of this file's own (whose budgets
// the tests set). Each test pays with a member of its own, mapped to the dev key the worker uses.
import type { WorkflowHandle } from '@temporalio/client';
import {
  type BudgetGatedJobResult,
  budgetLedgerStateQuery,
  budgetLedgerWorkflowId,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { budgetGatedJob } from '../../src/operations/budgetGatedJob/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { cleanEnv, runNode, waitFor } from '../helpers/processes';
import { emulatorPlatform, uniqueId, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

/** A 5 s text-to-video: 5 × 1120 in the default price table, and what the emulator charges. */
const VIDEO_COST = 5_600;

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ clockSpeed: 1 });
});
afterAll(() => emulator.close());

const env = (taskQueue: string) =>
  cleanEnv({
    TEMPORAL_ADDRESS: testEnv('temporalAddress'),
    TEMPORAL_NAMESPACE: testEnv('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
  });
const cli = (args: string[], taskQueue = 'unused-queue') => runNode('starter.js', args, env(taskQueue));

const withBudgetWorker = <T>(prefix: string, fn: Parameters<typeof withWorker<T>>[1]) =>
  withWorker(prefix, fn, { platform: emulatorPlatform(emulator.url) });

/**
 * The flags of a scheduled 5 s video for `memberId`, quick on the emulator (0.5 s), without
 * re-generations: its reservation is one video's price.
 */
const videoJob = (memberId: string) => [
  ...['--member-id', memberId, '--job', 'mediaGeneration', '--job-input'],
  JSON.stringify({
    operation: 'text-to-video',
    request: { prompt: 'a lighthouse at dusk [emulator:duration=500]', duration: 5 },
    regeneration: { maxRegenerations: 0 },
  }),
];

describe('schedule CLI', () => {
  it('runs a budget-gated video on a schedule until the budget is spent: Completed twice, then Skipped', () =>
    withBudgetWorker('schedule-runs', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(2 * VIDEO_COST + 800); // covers exactly two
      const scheduleId = uniqueId('sched-video');
      // buffer-all: a run due while the last one still runs waits for it, so the runs are one at a time.
      const created = await cli(
        ['schedule', 'create', scheduleId, '--every', '3s', '--overlap', 'buffer-all', ...videoJob(memberId)],
        taskQueue,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toContain(
        `Created schedule ${scheduleId}: every 3s, overlap buffer-all. Each run is a budgetGatedJob ` +
          `(mediaGeneration) for member ${memberId} on task queue ${taskQueue}, skip without budget.`,
      );
      expect(created.stdout).toMatch(/Next run: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\./);

      const schedule = client.schedule.getHandle(scheduleId);
      await waitFor(async () => (await schedule.describe()).info.recentActions.length >= 3, 30_000, 'three runs');
      const paused = await cli(['schedule', 'pause', scheduleId, '--note', 'budget spent'], taskQueue);
      expect(paused.code).toBe(0);
      expect(paused.stdout).toBe(`Paused schedule ${scheduleId}; runs already started go on.\n`);

      const runs = (await schedule.describe()).info.recentActions.map((a) =>
        client.workflow.getHandle<typeof budgetGatedJob>(a.action.workflow.workflowId),
      );
      const results: BudgetGatedJobResult[] = await Promise.all(runs.map((h) => h.result()));
      // A run that fired before the pause took effect found no budget either.
      expect(results.map((r) => r.outcome)).toEqual(['Completed', 'Completed', ...runs.slice(2).map(() => 'Skipped')]);
      for (const r of results.slice(0, 2)) {
        expect(r.admission).toMatchObject({ decision: 'admitted', reserved: VIDEO_COST, costSource: 'priceTable' });
        expect(r.job?.workflowId).toMatch(new RegExp(`^${scheduleId}-.+/mediaGeneration$`));
      }
      const skipped = results[2];
      expect(skipped.admission).toMatchObject({ decision: 'refused', reserved: 0 });
      expect(skipped.reason).toMatch(/budget does not cover 5600 \(0\.5600 USD\) on top of 0 reserved/);
      expect(skipped.job).toBeUndefined();
      // Skipped is a success, and the run carries the schedule's search attributes.
      const third = await runs[2].describe();
      expect(third.status.name).toBe('COMPLETED');
      expect(third.workflowId.startsWith(`${scheduleId}-`)).toBe(true);
      expect(third.typedSearchAttributes.get(SearchAttributes.operation)).toBe(WorkflowType.budgetGatedJob);
      expect(third.typedSearchAttributes.get(SearchAttributes.memberId)).toBe(memberId);
      expect(await third.staticSummary()).toBe(
        `budget-gated mediaGeneration, member ${memberId}, schedule ${scheduleId}`,
      );
      expect((await emulator.member(memberId)).remaining).toBe(800);

      const described = await cli(['schedule', 'describe', scheduleId], taskQueue);
      expect(described.code).toBe(0);
      expect(described.stdout).toContain('  spec:       every 3s\n');
      expect(described.stdout).toContain('  overlap:    buffer-all\n');
      expect(described.stdout).toContain('  state:      paused ("budget spent")\n');
      expect(described.stdout).toContain(`, member ${memberId}, job mediaGeneration, skip without budget\n`);
      expect(described.stdout).toContain('  next runs:  (paused)\n');
      const runLine = (h: WorkflowHandle) => new RegExp(`\\n {4}\\S+Z {2}${h.workflowId} {2}(.*)`);
      const outcomes = runs.map((h) => runLine(h).exec(described.stdout)?.[1]);
      expect(outcomes[0]).toBe(
        `Completed: reserved 5600 (0.5600 USD), job mediaGeneration as workflow ${runs[0].workflowId}/mediaGeneration.`,
      );
      expect(outcomes[1]).toMatch(/^Completed: reserved 5600 /);
      expect(outcomes[2]).toBe(`Skipped: reserved 0 (0.0000 USD). ${skipped.reason}`);

      // A trigger starts a run even while paused; this one finds 800 left, and is skipped.
      const triggered = await cli(['schedule', 'trigger', scheduleId], taskQueue);
      expect(triggered.code).toBe(0);
      expect(triggered.stdout).toContain(`Triggered schedule ${scheduleId}: a run starts now`);
      await waitFor(
        async () => (await schedule.describe()).info.recentActions.length === runs.length + 1,
        15_000,
        'the triggered run',
      );
      const extra = (await schedule.describe()).info.recentActions.at(-1)!.action.workflow.workflowId;
      expect((await client.workflow.getHandle<typeof budgetGatedJob>(extra).result()).outcome).toBe('Skipped');

      // Listing is eventually consistent: the paused schedule shows up there shortly.
      await waitFor(
        async () => {
          const listed = await cli(['schedule', 'list'], taskQueue);
          return listed.code === 0 && new RegExp(`${scheduleId} +every 3s +yes +- +\\d+`).test(listed.stdout);
        },
        20_000,
        'the schedule in the list',
      );

      const deleted = await cli(['schedule', 'delete', scheduleId], taskQueue);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toBe(`Deleted schedule ${scheduleId}; runs it started go on.\n`);
      const gone = await cli(['schedule', 'describe', scheduleId], taskQueue);
      expect(gone.code).toBe(4);
      expect(gone.stderr).toBe(`Schedule ${scheduleId} was not found; \`schedule list\` shows the schedules.\n`);

      const ledger = await cli(['budget', 'show', memberId], taskQueue);
      expect(ledger.code).toBe(0);
      expect(ledger.stdout).toContain('  outstanding: 0 (0.0000 USD) held by 0 reservations\n');
      expect(ledger.stdout).toMatch(/ {2}totals: 2 admitted, \d+ refused, 2 released, 0 reclaimed\n/);
    }));

  it.each([
    [['--every', 'soon'], /^--every must be a duration such as 30s, 5m, 1h or 1h30m, not "soon"\.\n$/],
    [['--every', '0s'], /^--every must be longer than 0s, not "0s"\.\n$/],
    [['--every', '5m', '--cron', '0 * * * *'], /^schedule create needs exactly one of --cron "<expr>" and --every/],
    [[], /^schedule create needs exactly one of --cron "<expr>" and --every <duration>\.\n$/],
    [['--cron', 'every day'], /^--cron must be a cron expression of 5 to 7 fields such as "0 3 \* \* MON-FRI"/],
    [['--every', '1h', '--overlap', 'maybe'], /^--overlap must be one of skip, buffer-one, buffer-all, cancel-other/],
    [['--every', '1h', '--jitter', '-5s'], /^--jitter must be a duration such as 30s/],
    [['--every', '1h', '--catchup-window', 'x'], /^--catchup-window must be a duration such as 30s/],
  ])('refuses the timing %j with exit 2 before creating anything', async (timing, message) => {
    const run = await cli(['schedule', 'create', uniqueId('sched-refused'), ...timing, ...videoJob('member-x')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it.each([
    [['--job', 'renewInstance', '--instance-id', 'i', '--months', '1'], /budgetGatedJob input: memberId: is required/],
    [
      [...videoJob('m'), '--budget-wait-seconds', '60'],
      // The schedule's default is skip, so a wait needs --on-insufficient wait.
      /wait: only applies when onInsufficient is "wait"/,
    ],
    [['--input', '{"memberId":"m","job":{"workflowType":"renewInstance","input":{}}}'], /job\.input\.instanceId/],
  ])('refuses the job %j with exit 2, naming the field', async (job, message) => {
    const run = await cli(['schedule', 'create', uniqueId('sched-refused'), '--every', '1h', ...job]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('exits 5 for an existing id, 4 for an unknown one, 2 for a cron the server refuses, 3 without Temporal', async () => {
    const scheduleId = uniqueId('sched-cron');
    const job = ['--member-id', 'member-x', '--job', 'renewInstance', '--instance-id', 'inst-x', '--months', '1'];
    const create = () =>
      cli(['schedule', 'create', scheduleId, '--cron', '0 3 * * MON-FRI', '--paused', '--note', 'later', ...job]);
    const created = await create();
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created schedule ${scheduleId}: cron "0 3 * * MON-FRI", overlap skip.`);
    expect(created.stdout).toContain('It is paused: `schedule unpause` starts it.');

    const again = await create();
    expect(again.code).toBe(5);
    expect(again.stderr).toBe(`Schedule ${scheduleId} already exists: pick another id, or delete it first.\n`);

    const described = await cli(['schedule', 'describe', scheduleId]);
    expect(described.code).toBe(0);
    expect(described.stdout).toContain('  spec:       cron "0 3 * * MON-FRI"\n');
    expect(described.stdout).toContain('  state:      paused ("later")\n');
    expect(described.stdout).toContain(', member member-x, job renewInstance, skip without budget\n');
    expect(described.stdout).toContain('  recent runs: none yet\n');

    const refused = await cli(['schedule', 'create', uniqueId('sched-cron'), '--cron', '61 * * * *', ...job]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--cron "61 \* \* \* \*" was refused by Temporal: .+\.\n$/);

    const unknown = uniqueId('sched-unknown');
    for (const args of [
      ['describe', unknown],
      ['pause', unknown],
      ['trigger', unknown],
      ['delete', unknown],
    ]) {
      const run = await cli(['schedule', ...args]);
      expect(run.code).toBe(4);
      expect(run.stderr).toBe(`Schedule ${unknown} was not found; \`schedule list\` shows the schedules.\n`);
    }
    expect((await cli(['schedule', 'delete', scheduleId])).code).toBe(0);

    const down = await runNode('starter.js', ['schedule', 'list'], cleanEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' }));
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^Cannot reach Temporal at 127\.0\.0\.1:1: /);
  });
});

describe('budget CLI', () => {
  it('shows a ledger, has waiting jobs re-check, and releases a reservation', () =>
    withBudgetWorker('budget-cli', async ({ client, taskQueue }) => {
      const memberId = await emulator.freshMember(0);
      const none = await cli(['budget', 'show', memberId], taskQueue);
      expect(none.code).toBe(4);
      expect(none.stderr).toBe(`Member ${memberId} has no ledger yet: no budget-gated job has asked for its budget.\n`);

      // A job that waits for budget, started and watched through the CLI.
      const id = uniqueId('budget-cli-wait');
      const waiting = cli(
        [
          ...['start', WorkflowType.budgetGatedJob, '--id', id, '--member-id', memberId, '--cost', '1000'],
          ...['--job', 'billingReport', '--cycle-type', 'Day', '--from', '2026-01-01', '--to', '2026-01-02'],
          ...['--on-insufficient', 'wait', '--budget-wait-seconds', '600', '--wait'],
        ],
        taskQueue,
      );
      const ledger = client.workflow.getHandle(budgetLedgerWorkflowId(memberId));
      const state = () => ledger.query(budgetLedgerStateQuery);
      await waitFor(async () => (await state().catch(() => undefined))?.waiting.length === 1, 20_000, 'a waiting job');

      const shown = await cli(['budget', 'show', memberId], taskQueue);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`Budget ledger of member ${memberId} (workflow budgetLedger:${memberId})\n`);
      expect(shown.stdout).toContain('  outstanding: 0 (0.0000 USD) held by 0 reservations\n');
      expect(shown.stdout).toContain(`  waiting for budget: 1 job\n    ${id}\n`);
      expect(shown.stdout).toContain('  totals: 0 admitted, 1 refused, 0 released, 0 reclaimed\n');

      // One job re-checks: still no budget, so it goes on waiting.
      const one = await cli(['budget', 'recheck', '--workflow', id], taskQueue);
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(
        new RegExp(`^Asked workflow ${id} to re-check its budget now \\(it was WAITING_FOR_BUDGET`),
      );
      await waitFor(async () => (await state()).totals.refused === 2, 15_000, 'the second check');

      await emulator.admin('PUT', `/members/${memberId}/budget`, { remaining: 20_000 });
      const all = await cli(['budget', 'recheck', memberId], taskQueue);
      expect(all.code).toBe(0);
      expect(all.stdout).toBe(
        `Asked member ${memberId}'s ledger to have its waiting jobs re-check: 1 job was waiting (${id}).\n`,
      );
      const run = await waiting;
      expect(run.code).toBe(0);
      // Not a terminal: one progress line per change, with the time left in the wait.
      expect(run.stderr).toMatch(
        /^WAITING_FOR_BUDGET {2}cost 1000 \(0\.1000 USD\) {2}checks 1 {2}wait ends in (9m5\d|10m00)s$/m,
      );
      expect(run.stdout).toContain(
        `Completed: reserved 1000 (0.1000 USD), job billingReport as workflow ${id}/billingReport.\n`,
      );

      // A job holding a reservation; an operator gives it back.
      const holder = await client.workflow.start<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
        taskQueue,
        workflowId: uniqueId('budget-cli-hold'),
        args: [
          {
            memberId,
            job: {
              workflowType: 'mediaGeneration',
              input: {
                operation: 'text-to-video',
                request: { prompt: 'a long take [emulator:duration=600000]', duration: 5 },
                regeneration: { maxRegenerations: 0 },
              },
            },
          },
        ],
      });
      await waitFor(async () => (await state()).reservations.length === 1, 20_000, 'the reservation');
      const { reservationId } = (await state()).reservations[0];
      const held = await cli(['budget', 'show', memberId], taskQueue);
      expect(held.stdout).toContain('  outstanding: 5600 (0.5600 USD) held by 1 reservation\n');
      expect(held.stdout).toContain(
        `    ${reservationId}  holder ${holder.workflowId}  cost 5600 (0.5600 USD)  since `,
      );

      const released = await cli(['budget', 'release', memberId, reservationId], taskQueue);
      expect(released.code).toBe(0);
      expect(released.stdout).toBe(
        `Released reservation ${reservationId} of member ${memberId}: 5600 (0.5600 USD) freed, ` +
          'and the waiting jobs were told to re-check.\n',
      );
      const again = await cli(['budget', 'release', memberId, reservationId], taskQueue);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(
        `Member ${memberId}'s ledger holds no reservation ${reservationId}: nothing was freed.\n`,
      );
      expect((await state()).outstanding).toBe(0);

      const notAJob = await cli(['budget', 'recheck', '--workflow', budgetLedgerWorkflowId(memberId)], taskQueue);
      expect(notAJob.code).toBe(2);
      expect(notAJob.stderr).toBe(
        `--workflow budgetLedger:${memberId} is a budgetLedger, not a budgetGatedJob: ` +
          'only budget-gated jobs re-check their budget.\n',
      );
      await holder.cancel();
      await holder.result().catch(() => undefined);
    }));

  it('exits 4 for a member without a ledger or an unknown workflow, and 2 for a member and --workflow both', async () => {
    const nobody = uniqueId('member-nobody');
    for (const args of [
      ['recheck', nobody],
      ['release', nobody, 'r-1'],
    ]) {
      const run = await cli(['budget', ...args]);
      expect(run.code).toBe(4);
      expect(run.stderr).toBe(`Member ${nobody} has no ledger yet: no budget-gated job has asked for its budget.\n`);
    }
    const missing = await cli(['budget', 'recheck', '--workflow', 'no-such-workflow-id']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe('Workflow no-such-workflow-id was not found.\n');
    const both = await cli(['budget', 'recheck', nobody, '--workflow', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('budget recheck takes exactly one of <memberId> and --workflow <id>.\n');
  });
});
