// Readable log lines for a person at a terminal, JSON lines for machines (docs/configuration.md#logs).
import { DefaultLogger, type LogEntry, type Logger, type LogLevel, type LogMetadata } from '@temporalio/worker';
import { isColorSupported, prettyFactory } from 'pino-pretty';
import { isQuotaTaskQueue } from '@platform-ops/client';

export type LogFormat = 'pretty' | 'json';

export function logFormatOf(
  configured: LogFormat | undefined,
  stream: { isTTY?: boolean } = process.stdout,
): LogFormat {
  return configured ?? (stream.isTTY ? 'pretty' : 'json');
}

// Said in front of a line by componentOf, or ids a person does not read.
const HIDDEN_IN_PRETTY =
  'component,sdkComponent,namespace,taskToken,workflowRunId,runId,activityId,isLocal,workflowType,activityType,workflowId';

const name = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `activity submitMedia media-42#2`, `workflow mediaGeneration media-42`. */
function componentOf(log: Record<string, unknown>): string {
  const who = name(log.component) ?? name(log.sdkComponent);
  const what = name(log.activityType) ?? name(log.workflowType);
  const id = name(log.workflowId);
  const attempt = typeof log.attempt === 'number' && log.attempt > 1 ? `#${log.attempt}` : '';
  return [who, what, id ? `${id}${attempt}` : undefined].filter(Boolean).join(' ');
}

const toRecord = ({ level, message, meta, timestampNanos }: LogEntry): Record<string, unknown> => ({
  time: new Date(Number(timestampNanos / 1_000_000n)).toISOString(),
  level,
  message,
  ...meta,
});

export function prettyFormatter(opts: { colorize?: boolean } = {}): (entry: LogEntry) => string {
  const pretty = prettyFactory({
    colorize: opts.colorize ?? isColorSupported,
    messageKey: 'message',
    timestampKey: 'time',
    translateTime: 'SYS:HH:MM:ss.l',
    customLevels: 'TRACE:10,DEBUG:20,INFO:30,WARN:40,ERROR:50',
    useOnlyCustomProps: true,
    ignore: HIDDEN_IN_PRETTY,
    singleLine: true,
    messageFormat: (log, messageKey, _level, { colors }) => {
      const who = componentOf(log);
      const raw = log[messageKey];
      const message = typeof raw === 'string' ? raw : JSON.stringify(raw);
      return who ? `${colors.gray(who)} ${message}` : message;
    },
  });
  return (entry) => pretty(toRecord(entry));
}

const BUNDLE_STATS = /^asset workflow-bundle-\S+ ([\d.]+ [KMG]iB)[\s\S]*compiled successfully in (\d+) ms\s*$/;
// Said of every worker at every start: only worth reading when something is being looked for.
const ROUTINE = new Set([
  'No Nexus services registered, not polling for Nexus tasks',
  'Workflow bundle created', // BUNDLE_STATS's summary gives its size
]);

const ORPHAN_COMPLETION = 'Activity not found on completion.';

type Said = { level: LogLevel; message: string; meta?: LogMetadata };

/**
 * Expected conditions said at the level they deserve: a quota worker has no workflows by design, its state
 * changes follow the main worker's, and webpack's report of the workflow bundle is one line.
 */
export function reshape(level: LogLevel, message: string, meta?: LogMetadata): Said[] {
  const stats = level === 'INFO' ? BUNDLE_STATS.exec(message) : null;
  if (stats) {
    return [
      { level: 'INFO', message: 'Workflow bundle built', meta: { ...meta, size: stats[1], buildMs: Number(stats[2]) } },
      { level: 'DEBUG', message, meta },
    ];
  }
  // A run that ended while an activity attempt was in flight: the answer has nobody to go to. Paid calls never
  // complete through Core (src/activities/earlier-runs.ts answerPaidCall), so this is never money.
  if (message.startsWith(ORPHAN_COMPLETION) && /workflow execution already completed/.test(String(meta?.details))) {
    return [{ level: 'INFO', message, meta }];
  }
  const quotaWorker = typeof meta?.taskQueue === 'string' && isQuotaTaskQueue(meta.taskQueue);
  const routine =
    ROUTINE.has(message) ||
    (quotaWorker &&
      (message === 'Worker state changed' || message === 'No workflows registered, not polling for workflow tasks'));
  return [{ level: routine && level !== 'ERROR' ? 'DEBUG' : level, message, meta }];
}

export function createLogger(
  level: LogLevel,
  format: LogFormat,
  write: (text: string) => void = (text) => void process.stdout.write(text),
): Logger {
  const line = format === 'json' ? (entry: LogEntry) => `${JSON.stringify(toRecord(entry))}\n` : prettyFormatter();
  const sink = new DefaultLogger(level, (entry) => write(line(entry)));
  const log = (lvl: LogLevel, message: string, meta?: LogMetadata): void => {
    for (const said of reshape(lvl, message, meta)) sink.log(said.level, said.message, said.meta);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

export const linesOf =
  (logger: Logger, component: string) =>
  (line: string): void => {
    logger.info(line, { component });
  };

/** The Runtime's log collector keeps each entry 100 ms to put the SDK's and Core's lines in order. */
export const settleLogs = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 250));
