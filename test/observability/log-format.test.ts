// Unit test of src/logging.ts: no server and no mocks; log entries go in, the lines a person or a machine reads
// come out.
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { loadWorkerSettings } from '../../src/config/settings';
import { createLogger, logFormatOf, prettyFormatter, reshape } from '../../src/logging';

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
    const logger = createLogger('INFO', 'json', (text) => written.push(text));
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
    const logger = createLogger('DEBUG', 'pretty', (text) => written.push(text));
    logger.info('Worker state changed', { taskQueue: 'platform-ops.quota.async', state: 'RUNNING' });
    expect(written.join('')).toContain('DEBUG');
    expect(written.join('')).toContain('Worker state changed');
  });
});
