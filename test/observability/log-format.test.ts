// Unit test of src/logging.ts: no server and no mocks; log entries go in, the lines a person or a machine reads
// come out.
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { loadWorkerSettings } from '../../src/config/settings';
import {
  boundedOutputLine,
  createLogger,
  logFormatOf,
  MAX_LOG_LINE_BYTES,
  prettyFormatter,
  reshape,
  type LogCut,
} from '../../src/logging';

const at = (level: LogLevel, message: string, meta?: LogMetadata) => ({
  level,
  message,
  meta,
  timestampNanos: BigInt(Date.UTC(2026, 10, 26, 13, 15, 52, 233)) * 1_000_000n,
});

const BUNDLE_STATS = [
  'asset workflow-bundle-358e93576f6af7d32b0c.js 4.98 MiB [emitted] [immutable] (name: main)',
  'runtime modules 614 bytes 3 modules',
  'modules by path ./node_modules/ 1.42 MiB',
  '  modules by path ./node_modules/zod/ 987 KiB 95 modules',
  'webpack 5.105.2 compiled successfully in 2354 ms',
].join('\n');

describe('logFormatOf', () => {
  it('is readable in a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(logFormatOf(undefined, { isTTY: true })).toBe('pretty');
    expect(logFormatOf(undefined, { isTTY: false })).toBe('json');
    expect(logFormatOf(undefined, {})).toBe('json');
    expect(logFormatOf('json', { isTTY: true })).toBe('json');
    expect(logFormatOf('pretty', { isTTY: false })).toBe('pretty');
  });
});

describe('LOG_FORMAT', () => {
  it('is pretty or json, and anything else is refused naming it', () => {
    expect(loadWorkerSettings({ LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(loadWorkerSettings({}).LOG_FORMAT).toBeUndefined();
    expect(() => loadWorkerSettings({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT: must be one of "pretty", "json"');
  });
});

describe('a readable line', () => {
  const pretty = prettyFormatter({ colorize: false });

  it('has the time, the level, who says it and the message, then the fields that matter', () => {
    const line = pretty(
      at('WARN', 'Submit attempt failed', {
        sdkComponent: 'activity',
        activityType: 'submitMedia',
        workflowId: 'media-42',
        attempt: 2,
        namespace: 'default',
        taskToken: 'AAAA',
        workflowRunId: 'run-1',
        outcome: 'refused',
      }),
    );
    expect(line).toMatch(/^\[\d\d:\d\d:52\.233\] WARN: activity submitMedia media-42#2 Submit attempt failed /);
    expect(line).toContain('"attempt":2');
    expect(line).toContain('"outcome":"refused"');
    for (const id of ['taskToken', 'workflowRunId', 'namespace', 'sdkComponent']) expect(line).not.toContain(id);
    expect(line.trimEnd().split('\n')).toHaveLength(1);
  });

  it('colours the level when asked', () => {
    const coloured = prettyFormatter({ colorize: true })(at('ERROR', 'boom'));
    // eslint-disable-next-line no-control-regex
    expect(coloured).toMatch(/\u001b\[31mERROR\u001b\[39m/);
  });
});

describe('reshape', () => {
  it('says the workflow bundle in one line with its size and build time, and the full report at DEBUG', () => {
    const said = reshape('INFO', BUNDLE_STATS, { sdkComponent: 'worker', taskQueue: 'platform-ops' });
    expect(said).toEqual([
      {
        level: 'INFO',
        message: 'Workflow bundle built',
        meta: { sdkComponent: 'worker', taskQueue: 'platform-ops', size: '4.98 MiB', buildMs: 2354 },
      },
      { level: 'DEBUG', message: BUNDLE_STATS, meta: { sdkComponent: 'worker', taskQueue: 'platform-ops' } },
    ]);
  });

  it('says at DEBUG what every start of a quota worker says, and nothing else moves', () => {
    const quota = { taskQueue: 'platform-ops.quota.async' };
    const main = { taskQueue: 'platform-ops' };
    expect(reshape('WARN', 'No workflows registered, not polling for workflow tasks', quota)[0]?.level).toBe('DEBUG');
    expect(reshape('INFO', 'Worker state changed', quota)[0]?.level).toBe('DEBUG');
    expect(reshape('INFO', 'Worker state changed', main)[0]?.level).toBe('INFO');
    expect(reshape('INFO', 'No Nexus services registered, not polling for Nexus tasks', main)[0]?.level).toBe('DEBUG');
    expect(reshape('WARN', 'No workflows registered, not polling for workflow tasks', main)[0]?.level).toBe('WARN');
    expect(reshape('ERROR', 'Worker state changed', quota)[0]?.level).toBe('ERROR');
    expect(reshape('INFO', 'asset workflow-bundle-1.js 1 MiB but no end', main)).toHaveLength(1);
  });

  it("says at INFO an attempt's answer to a run that has ended, and nothing else Core says of a lost activity", () => {
    const message =
      'Activity not found on completion. This may happen if the activity has already been cancelled but completed anyway.';
    const ended = {
      sdkComponent: 'core',
      details: 'Status { code: NotFound, message: "workflow execution already completed" }',
    };
    const other = { sdkComponent: 'core', details: 'Status { code: NotFound, message: "activity not found" }' };
    expect(reshape('WARN', message, ended)[0]?.level).toBe('INFO');
    expect(reshape('WARN', message, other)[0]?.level).toBe('WARN');
  });
});

describe('createLogger', () => {
  it('writes one JSON object a line, at the level asked, with the routine said at DEBUG', () => {
    const written: string[] = [];
    const logger = createLogger('INFO', 'json', { write: (text) => written.push(text) });
    logger.info(BUNDLE_STATS, { sdkComponent: 'worker' });
    logger.info('Worker state changed', { taskQueue: 'platform-ops.quota.async', state: 'RUNNING' });
    logger.debug('not shown');
    logger.warn('No pace', { quota: 'x' });
    expect(written.every((text) => text.endsWith('\n') && text.split('\n').length === 2)).toBe(true);
    const records = written.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(records).toEqual([
      expect.objectContaining({ level: 'INFO', message: 'Workflow bundle built', size: '4.98 MiB', buildMs: 2354 }),
      expect.objectContaining({ level: 'WARN', message: 'No pace', quota: 'x' }),
    ]);
    expect(records[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('shows the routine lines at DEBUG', () => {
    const written: string[] = [];
    const logger = createLogger('DEBUG', 'pretty', { write: (text) => written.push(text) });
    logger.info('Worker state changed', { taskQueue: 'platform-ops.quota.async', state: 'RUNNING' });
    expect(written.join('')).toContain('DEBUG');
    expect(written.join('')).toContain('Worker state changed');
  });
});

// What Core hands over when a history page comes back empty (sdk-core history_update.rs): the run's events, whole, in a
// field, with the run's ids from its spans.
const historyDump = (events: number) => ({
  sdkComponent: 'core',
  target: 'temporal_sdk_core::worker::workflow::history_update',
  spanContexts: ['workflow_activation'],
  run_id: 'f3f1c0de-0000-4000-8000-000000000001',
  workflow_id: 'mediaGeneration:order-42',
  no_next_page: true,
  seen_enough_events: false,
  current_events: `[${Array.from({ length: events }, (_, i) => `HistoryEvent { event_id: ${i + 1}, attributes: Some(WorkflowTaskScheduled${'x'.repeat(200)}) }`).join(', ')}]`,
});

describe('the bound on a log line', () => {
  const logged = (format: 'json' | 'pretty', fn: (logger: ReturnType<typeof createLogger>) => void) => {
    const written: string[] = [];
    const cuts: LogCut[] = [];
    fn(createLogger('INFO', format, { write: (text) => written.push(text), onCut: (reason) => cuts.push(reason) }));
    return { written, cuts };
  };

  it.each(['json', 'pretty'] as const)(
    'turns a history Core dumps into one %s line naming the run, and counts it',
    (format) => {
      const { written, cuts } = logged(format, (logger) => {
        logger.error('We expected to be able to fetch more events but server says there are none', historyDump(2_000));
      });
      expect(written).toHaveLength(1);
      const line = written[0];
      expect(Buffer.byteLength(line)).toBeLessThan(1_024);
      expect(line).toContain('We expected to be able to fetch more events');
      expect(line).toContain('mediaGeneration:order-42');
      expect(line).toContain('f3f1c0de-0000-4000-8000-000000000001');
      expect(line).not.toContain('HistoryEvent');
      expect(cuts).toEqual(['history_dump']);
    },
  );

  it('cuts a long message and long fields to 8 KB, keeping the ids and the fields short ones', () => {
    const { written, cuts } = logged('json', (logger) => {
      logger.warn(`Failing workflow task\n${'stack frame\n'.repeat(5_000)}`, {
        sdkComponent: 'worker',
        workflowId: 'batchJob:nightly',
        failure: { message: 'y'.repeat(100_000) },
        attempt: 3,
      });
      logger.info('short', { a: 1 });
    });
    expect(written.map((l) => Buffer.byteLength(l) <= MAX_LOG_LINE_BYTES)).toEqual([true, true]);
    const record = JSON.parse(written[0]) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 'WARN', workflowId: 'batchJob:nightly', attempt: 3 });
    expect(String(record.message)).toMatch(/^Failing workflow task\n.*more characters cut\)$/s);
    expect(String(record.failure)).toMatch(/more characters cut/);
    expect(cuts).toEqual(['too_long']);
  });

  it('keeps only the ids when a line has too many fields to cut each', () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field${i}`, 'z'.repeat(400)]));
    const { written } = logged('json', (logger) => {
      logger.error('Many fields', { ...many, sdkComponent: 'worker', workflowId: 'w-1', runId: 'r-1' });
    });
    expect(Buffer.byteLength(written[0])).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.parse(written[0])).toMatchObject({ message: 'Many fields', workflowId: 'w-1', runId: 'r-1' });
  });

  it("cuts another program's output line (the Temporal server's) to 8 KB and says how much", () => {
    expect(boundedOutputLine('{"level":"warn"}')).toBe('{"level":"warn"}');
    const line = boundedOutputLine(`{"level":"error","stacktrace":"${'é'.repeat(20_000)}"}`);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(line).toMatch(/^\{"level":"error".*… \(\d+ more bytes cut\)$/);
  });
});
