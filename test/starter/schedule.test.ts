// The starter's schedule support without a server: durations, the timing flags as a spec and
// policies, the spec written back as cron, each run's state as a line, and the errors as sentences.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type CalendarSpecDescription } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { buildProgram } from '../../src/starter';
import { runLine } from '../../src/starter/commands/schedule';
import { CliError, ExitCode, toScheduleCliError } from '../../src/cli/command';
import {
  calendarAsCron,
  describeScheduleSpec,
  formatDuration,
  overlapName,
  parseDuration,
  schedulePolicies,
  scheduleSpec,
  type ScheduleFlags,
} from '../../src/cli/schedule-spec';
import type { InputFlags } from '../../src/cli/flags';
import { buildWorkflowInput } from '../../src/starter/workflow-inputs';

// `up` loads the whole worker (activities, bundler): not needed to parse a command line.
jest.mock('../../src/starter/commands/up', () => ({ upCommand: jest.fn() }));

function refusal(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('durations', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    [' 90S ', 90_000],
  ])('reads %p', (text, ms) => {
    expect(parseDuration(text, '--every')).toBe(ms);
  });

  it.each(['', '5', 'soon', '1.5h', '-5s', '5 m', '10ms'])('refuses %p naming the flag', (text) => {
    const err = refusal(() => parseDuration(text, '--jitter'));
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).toBe(`--jitter must be a duration such as 30s, 5m, 1h or 1h30m, not "${text}".`);
  });

  it('refuses a zero duration', () => {
    expect(refusal(() => parseDuration('0m', '--every')).message).toBe('--every must be longer than 0s, not "0m".');
  });

  it('writes them back compactly', () => {
    expect([0, 250, 3_000, 90_000, 5_400_000, 86_400_000, 31_536_000_000].map(formatDuration)).toEqual([
      '0s',
      '250ms',
      '3s',
      '1m30s',
      '1h30m',
      '1d',
      '365d',
    ]);
  });
});

describe('schedule timing flags', () => {
  it('builds an interval or a cron spec, with jitter', () => {
    expect(scheduleSpec({ every: '5m', jitter: '30s' })).toEqual({ intervals: [{ every: 300_000 }], jitter: 30_000 });
    expect(scheduleSpec({ cron: ' 0 3 * * MON-FRI ' })).toEqual({ cronExpressions: ['0 3 * * MON-FRI'] });
    for (const cron of ['@daily', '@every 90m', 'CRON_TZ=Europe/Paris 0 9 * * *', '0 0 12 * * ? 2030 # noon']) {
      expect(scheduleSpec({ cron }).cronExpressions).toEqual([cron]);
    }
  });

  it.each<[ScheduleFlags, string]>([
    [{}, 'schedule create needs exactly one of --cron "<expr>" and --every <duration>.'],
    [
      { cron: '* * * * *', every: '1m' },
      'schedule create needs exactly one of --cron "<expr>" and --every <duration>.',
    ],
    [
      { cron: '* * *' },
      '--cron must be a cron expression of 5 to 7 fields such as "0 3 * * MON-FRI" (or @daily, @hourly …), not "* * *".',
    ],
    [
      { cron: '0 3 * * MON;FRI' },
      '--cron must be a cron expression of 5 to 7 fields such as "0 3 * * MON-FRI" (or @daily, @hourly …), not "0 3 * * MON;FRI".',
    ],
    [{ every: '1m', jitter: 'a bit' }, '--jitter must be a duration such as 30s, 5m, 1h or 1h30m, not "a bit".'],
  ])('refuses %j', (flags, message) => {
    const err = refusal(() => scheduleSpec(flags));
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).toBe(message);
  });

  it('maps the overlap names both ways, skip by default', () => {
    expect(schedulePolicies({})).toEqual({ overlap: 'SKIP', catchupWindow: undefined });
    expect(schedulePolicies({ overlap: 'buffer-all', catchupWindow: '10m' })).toEqual({
      overlap: 'BUFFER_ALL',
      catchupWindow: 600_000,
    });
    expect(overlapName('TERMINATE_OTHER')).toBe('terminate-other');
    expect(overlapName(undefined)).toBe('skip');
    expect(refusal(() => schedulePolicies({ overlap: 'BUFFER_ALL' })).message).toBe(
      '--overlap must be one of skip, buffer-one, buffer-all, cancel-other, terminate-other, allow-all, not "BUFFER_ALL".',
    );
  });
});

describe('schedule spec as the server answers it', () => {
  const any = <T>(start: T, end: T) => [{ start, end, step: 1 }];
  const calendar = (patch: Partial<CalendarSpecDescription>): CalendarSpecDescription => ({
    second: [{ start: 0, end: 0, step: 1 }],
    minute: [{ start: 0, end: 0, step: 1 }],
    hour: [{ start: 0, end: 0, step: 1 }],
    dayOfMonth: any(1, 31),
    month: any('JANUARY', 'DECEMBER'),
    year: [],
    dayOfWeek: any('SUNDAY', 'SATURDAY'),
    ...patch,
  });

  it('writes a compiled cron expression back as cron', () => {
    expect(
      calendarAsCron(
        calendar({
          minute: [{ start: 0, end: 59, step: 5 }],
          hour: any(9, 17),
          dayOfWeek: any('MONDAY', 'FRIDAY'),
        }),
      ),
    ).toBe('*/5 9-17 * * MON-FRI');
    expect(calendarAsCron(calendar({ hour: [{ start: 3, end: 3, step: 1 }] }))).toBe('0 3 * * *');
    expect(
      calendarAsCron(
        calendar({
          second: [{ start: 30, end: 30, step: 1 }],
          month: [
            { start: 'JANUARY', end: 'JANUARY', step: 1 },
            { start: 'JULY', end: 'JULY', step: 1 },
          ],
          year: [{ start: 2030, end: 2030, step: 1 }],
        }),
      ),
    ).toBe('30 0 0 * JAN,JUL * 2030');
  });

  it('describes intervals and calendars', () => {
    expect(describeScheduleSpec({ intervals: [{ every: 3_000, offset: 0 }] })).toBe('every 3s');
    expect(describeScheduleSpec({ intervals: [{ every: 3_600_000, offset: 900_000 }], timezone: 'Europe/Paris' })).toBe(
      'every 1h (offset 15m) (Europe/Paris)',
    );
    expect(describeScheduleSpec({ calendars: [calendar({})], intervals: [] })).toBe('cron "0 0 * * *"');
    expect(describeScheduleSpec({})).toBe('(no times: runs only when triggered)');
  });
});

describe('runLine', () => {
  /** A run's handle as the server would answer for it: its status, then its progress or its result. */
  const run = (status: string, answer: { progress?: object; result?: unknown; error?: Error } = {}) =>
    runLine({
      describe: () => Promise.resolve({ status: { name: status } }),
      query: () => (answer.progress ? Promise.resolve(answer.progress) : Promise.reject(new Error('no worker'))),
      result: () => (answer.error ? Promise.reject(answer.error) : Promise.resolve(answer.result)),
    } as never);

  it('gives the outcome of a closed run, and the progress of a running one', async () => {
    const result = {
      outcome: 'Skipped',
      memberId: 'm',
      reason: 'No budget.',
      admission: {
        decision: 'refused',
        reservationId: 'r',
        ledgerWorkflowId: 'budgetLedger:m',
        cost: 5_600,
        costSource: 'priceTable',
        gateCost: 0,
        reserved: 0,
        reservedUsd: '0.0000',
        outstandingAtCheck: 0,
        checkedCost: 5_600,
        checks: 1,
        waitedSeconds: 0,
      },
      released: false,
    };
    expect(await run('COMPLETED', { result })).toBe('Skipped: reserved 0 (0.0000 USD). No budget.');
    expect(await run('COMPLETED', { result: { other: true } })).toBe('Completed');
    expect(await run('RUNNING', { progress: { status: 'WAITING_FOR_BUDGET' } })).toBe('Running (WAITING_FOR_BUDGET)');
    expect(await run('RUNNING')).toBe('Running');
    const noBudget = new Error('failed', {
      cause: ApplicationFailure.create({ message: 'no budget', type: 'BudgetExceeded' }),
    });
    expect(await run('FAILED', { error: noBudget })).toBe('Failed: no budget [BudgetExceeded]');
    expect(await run('TIMED_OUT', { error: new Error('timed out') })).toBe('Timed out');
    const gone = runLine({ describe: () => Promise.reject(new Error('not found')) } as never);
    expect(await gone).toMatch(/^no longer found/);
  });
});

describe('schedule errors', () => {
  it('says what went wrong with the exit code scripts act on', () => {
    const notFound = toScheduleCliError(new ScheduleNotFoundError('not found', 's1'), 's1');
    expect([notFound.exitCode, notFound.message]).toEqual([
      ExitCode.NotFound,
      'Schedule s1 was not found; `schedule list` shows the schedules.',
    ]);
    const exists = toScheduleCliError(new ScheduleAlreadyRunning('exists', 's1'), 's1');
    expect([exists.exitCode, exists.message]).toEqual([
      ExitCode.AlreadyStarted,
      'Schedule s1 already exists: pick another id, or delete it first.',
    ]);
    const spec = toScheduleCliError(new TypeError('Minute is not in range [0-59]'), 's1', { cron: '61 * * * *' });
    expect([spec.exitCode, spec.message]).toEqual([
      ExitCode.Usage,
      '--cron "61 * * * *" was refused by Temporal: Minute is not in range [0-59].',
    ]);
  });
});

describe('schedule create flags', () => {
  it('reads the job from the same flags as `start`, and skips without budget by default', async () => {
    const program = buildProgram();
    let seen: InputFlags | undefined;
    program.commands
      .find((c) => c.name() === 'schedule')!
      .commands.find((c) => c.name() === 'create')!
      .action((_id: string, opts: InputFlags) => {
        seen = opts;
      });
    await program.parseAsync(
      [
        ...['schedule', 'create', 's1', '--every', '1h', '--member-id', 'm', '--job', 'mediaGeneration'],
        ...['--prompt', 'a fox', '--duration', '5', '--cost', '5600'],
      ],
      { from: 'user' },
    );
    expect(seen).toMatchObject({ every: '1h', overlap: 'skip', memberId: 'm', prompt: 'a fox' });
    expect(buildWorkflowInput('budgetGatedJob', seen!, { onInsufficient: 'skip' })).toEqual({
      memberId: 'm',
      cost: 5_600,
      onInsufficient: 'skip',
      job: {
        workflowType: 'mediaGeneration',
        input: { operation: 'text-to-video', request: { prompt: 'a fox', duration: 5 }, memberId: 'm' },
      },
    });
  });

  it('keeps what the user set, from flags or JSON', () => {
    const job = { workflowType: 'renewInstance', input: { instanceId: 'i', months: 1 } };
    expect(
      buildWorkflowInput(
        'budgetGatedJob',
        { memberId: 'm', job: 'renewInstance', instanceId: 'i', months: '1', onInsufficient: 'fail' },
        { onInsufficient: 'skip' },
      ),
    ).toMatchObject({ onInsufficient: 'fail' });
    expect(
      buildWorkflowInput(
        'budgetGatedJob',
        { input: JSON.stringify({ memberId: 'm', job }) },
        { onInsufficient: 'skip' },
      ),
    ).toEqual({ memberId: 'm', job, onInsufficient: 'skip' });
    expect(
      buildWorkflowInput(
        'budgetGatedJob',
        { input: JSON.stringify({ memberId: 'm', onInsufficient: 'wait', job }) },
        { onInsufficient: 'skip' },
      ),
    ).toMatchObject({ onInsufficient: 'wait' });
  });
});
