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

/** No log line is longer: a disk fills by whole histories otherwise, and the line that matters is buried. */
export const MAX_LOG_LINE_BYTES = 8 * 1024;
const MAX_MESSAGE_CHARS = 2_048;
const MAX_FIELD_CHARS = 512;
/** Ids kept when a line is cut to its bones: what an operator looks the run up by. */
const ID_FIELDS = ['sdkComponent', 'component', 'namespace', 'taskQueue', 'workflowType', 'activityType', 'attempt'];

/** Why a line was shortened, a label of the `log_lines_cut` metric. */
export type LogCut = 'history_dump' | 'too_long';

const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';
const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters cut)`;
const stringField = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The run a line is about, whichever way its source names it (the SDK's camelCase, Core's span fields). */
function runIds(meta: LogMetadata): LogMetadata {
  const workflowId = stringField(meta.workflowId) ?? stringField(meta.workflow_id);
  const runId = stringField(meta.runId) ?? stringField(meta.workflowRunId) ?? stringField(meta.run_id);
  return { ...(workflowId && { workflowId: cut(workflowId, 256) }), ...(runId && { runId: cut(runId, 64) }) };
}

/**
 * Core logs a run's whole history in a field when it gives up on a workflow task (`current_events` when a history page
 * comes back empty). Such a line keeps its run's ids and the error's first line; the history stays in the server.
 */
function isHistoryDump(meta: LogMetadata | undefined): boolean {
  if (meta?.sdkComponent !== 'core') return false;
  return Object.entries(meta).some(
    ([key, value]) =>
      key === 'current_events' ||
      (typeof value === 'string' && value.length > MAX_FIELD_CHARS && /HistoryEvent|event_id/.test(value)),
  );
}

function shortField(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return value;
  }
  if (typeof value === 'string') return cut(value, MAX_FIELD_CHARS);
  if (value instanceof Error) return cut(firstLine(value.message), MAX_FIELD_CHARS);
  try {
    return cut(JSON.stringify(value) ?? typeof value, MAX_FIELD_CHARS);
  } catch {
    return '(not serializable)';
  }
}

/**
 * Every line within MAX_LOG_LINE_BYTES, whatever the SDK, Core or our own code hands over: a history dump becomes
 * one line naming its run, a long line keeps its fields cut short, and at worst only its ids.
 */
function boundLine(
  said: Said,
  render: (said: Said) => string,
  onCut: (reason: LogCut) => void = () => undefined,
): string {
  if (isHistoryDump(said.meta)) {
    onCut('history_dump');
    const meta = said.meta ?? {};
    const ids = runIds(meta);
    const long = (k: string) => k === 'current_events' || String(meta[k]).length > MAX_FIELD_CHARS;
    const kept = Object.fromEntries(
      Object.keys(meta)
        .filter((k) => !long(k))
        .map((k) => [k, shortField(meta[k])]),
    );
    const run = ids.runId === undefined ? '' : ` (run ${String(ids.runId)})`;
    const message = `${cut(firstLine(said.message), MAX_MESSAGE_CHARS)}${run}: the run's history is left out of the log`;
    return render({ ...said, message, meta: { ...kept, ...ids, cut: Object.keys(meta).filter(long).join(',') } });
  }
  const whole = render(said);
  if (Buffer.byteLength(whole) <= MAX_LOG_LINE_BYTES) return whole;
  onCut('too_long');
  const meta = Object.fromEntries(Object.entries(said.meta ?? {}).map(([k, v]) => [k, shortField(v)]));
  const shortened = render({ ...said, message: cut(said.message, MAX_MESSAGE_CHARS), meta });
  if (Buffer.byteLength(shortened) <= MAX_LOG_LINE_BYTES) return shortened;
  const ids = Object.fromEntries(ID_FIELDS.filter((k) => k in meta).map((k) => [k, meta[k]]));
  return render({
    ...said,
    message: cut(said.message, MAX_MESSAGE_CHARS),
    meta: { ...ids, ...runIds(said.meta ?? {}) },
  });
}

/** Another program's output line (the Temporal server's, the UI server's) within the same bound, cut where it passes. */
export function boundedOutputLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LOG_LINE_BYTES) return line;
  const kept = Buffer.from(line)
    .subarray(0, MAX_LOG_LINE_BYTES - 64)
    .toString();
  return `${kept}… (${Buffer.byteLength(line) - Buffer.byteLength(kept)} more bytes cut)`;
}

export interface LoggerOptions {
  write?: (text: string) => void;
  /** Told of every line shortened, for the `log_lines_cut` metric. */
  onCut?: (reason: LogCut) => void;
}

export function createLogger(level: LogLevel, format: LogFormat, opts: LoggerOptions = {}): Logger {
  const write = opts.write ?? ((text: string) => void process.stdout.write(text));
  const line = format === 'json' ? (entry: LogEntry) => `${JSON.stringify(toRecord(entry))}\n` : prettyFormatter();
  // The SDK's sink drops what is below `level` and stamps the time; the bound applies to the entry it hands over.
  const sink = new DefaultLogger(level, ({ timestampNanos, ...said }) =>
    write(boundLine(said, (s) => line({ ...s, timestampNanos }), opts.onCut)),
  );
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
