// The media-polling benchmark's tables, and the worker and server tables the other benchmarks share.
import type { MediaBenchResult } from './polling';
import { COMPARED, ratioToOurs, type GenerationFigures } from './peers';
import { formatChecks } from '../support/checks';
import { formatPhases } from '../support/history-phases';
import type { ratioToFloor, ServerRequestFigures, WorkerFigures } from '../support/load-figures';

/** A table: left-aligned first column, the rest right-aligned. */
export function formatTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The worker figures of a workflow type per row; `ratio` adds a row of mediaGeneration / floor. */
export function formatWorkerTable(rows: WorkerFigures[], ratio?: ReturnType<typeof ratioToFloor>): string {
  const head = [
    'worker process',
    'workflows',
    'completed',
    'peak open',
    'starts/s',
    'RSS idle MB',
    'RSS peak MB',
    'RSS KB/open wf',
    'CPU s',
    'idle CPU ms/s',
    'CPU ms/start',
    'history events/task',
    'makespan s',
  ];
  const body = rows.map((w) => [
    w.workflowType,
    String(w.workflows),
    String(w.completed),
    String(w.peakOpen),
    String(w.startsPerSecond),
    String(w.rssIdleMb),
    String(w.rssPeakMb),
    String(w.rssPerOpenWorkflowKb),
    String(w.cpuS),
    String(w.idleCpuMsPerS),
    String(w.cpuMsPerStart),
    `${w.historyEventsPerTask} (max ${w.historyEventsMax})`,
    String(w.makespanS),
  ]);
  if (ratio) {
    const r = (n: number | null) => (n === null ? 'n/a' : `${n}x`);
    body.push([
      'ratio to the floor',
      '',
      '',
      '',
      '',
      '',
      '',
      r(ratio.rssPerOpenWorkflow),
      '',
      '',
      r(ratio.cpuMsPerStart),
      '',
      '',
    ]);
  }
  return formatTable(head, body);
}

export function formatServerFigures(name: string, s: ServerRequestFigures): string {
  const ops = (top: Array<{ operation: string; requests: number }>) =>
    top.map((t) => `${t.operation} ${t.requests}`).join(', ') || 'none';
  const window =
    'none' in s.window
      ? `not measured: ${s.window.none}`
      : `${s.perWaitingTaskPerMinute} per waiting task per minute (${s.requestsInWindow} requests in ${s.window.seconds} s ` +
        `with all ${s.window.waitingTasks} waiting; top: ${ops(s.topInWindow)})`;
  return (
    `server requests, ${name}: ${window}\n` +
    `  whole run: ${s.perTaskWholeRun} per task, ${s.perWaitingTaskMinuteWholeRun ?? 'n/a'} per task-minute of waiting ` +
    `(top: ${ops(s.topWholeRun)}); not counted: ${s.excluded.join(', ')} (the benchmark's own)`
  );
}

export function formatMediaTable(r: MediaBenchResult): string {
  const head = [
    'mode',
    'tasks',
    'polls/task',
    'total polls',
    'detect p50 ms',
    'detect p95 ms',
    'submit lag p95 ms',
    'result lag p95 ms',
    'makespan s',
  ];
  const rows = r.modes.map((m) => [
    m.mode,
    String(m.tasks),
    String(m.pollsPerTask),
    String(m.totalPolls),
    String(m.detectionP50Ms),
    String(m.detectionP95Ms),
    String(m.submitLagP95Ms),
    String(m.resultLagP95Ms),
    String(m.makespanS),
  ]);
  return [
    formatTable(head, rows),
    `makespan ratio, workflows / plain eta-aware script: ${r.makespanRatio}`,
    "where the workflows' submit lag goes:",
    formatPhases(r.submitPhases),
    "the SDK's floor, until its first command (its timer):",
    formatPhases(r.floorStartPhases),
    '',
    formatWorkerTable(
      [r.worker.mediaGeneration, r.worker.mediaGenerationEncryptionOff, r.worker.sdkFloor],
      r.worker.ratio,
    ),
    `worker CPU per generation, payload encryption on / off: ${r.codecCpuRatio}x`,
    '',
    formatServerFigures('mediaGeneration', r.server.mediaGeneration),
    formatServerFigures('SDK floor', r.server.sdkFloor),
    '',
    formatPeerTable(r),
    '',
    formatChecks(r.checks),
  ].join('\n');
}

/** Ours, the Temporal peer's two variants and the floor per generation, each beside its ratio to ours. */
function formatPeerTable(r: Pick<MediaBenchResult, 'ours' | 'peers' | 'floor'>): string {
  const columns: Array<[string, GenerationFigures]> = [
    ['peer, frequent', r.peers.frequent],
    ['peer, infrequent', r.peers.infrequent],
    ['SDK floor', r.floor],
  ];
  const cell = (f: GenerationFigures, k: (typeof COMPARED)[number]) => {
    const ratio = ratioToOurs(r.ours, f, k);
    return `${f[k]} (${ratio === null ? 'n/a' : `${ratio}x`})`;
  };
  const rows = COMPARED.map((k) => [k, String(r.ours[k]), ...columns.map(([, f]) => cell(f, k))]);
  const kinds = (f: Pick<GenerationFigures, 'actions'>) =>
    Object.entries(f.actions.byKind)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const listed = (of: Record<string, number>) =>
    Object.entries(of)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  const plain = r.ours.plainStart;
  return [
    'per generation (ratio to ours):',
    formatTable(['figure', 'ours', ...columns.map(([name]) => name)], rows),
    `Temporal Cloud Actions per generation, ours with Fairness on: ${r.ours.actionsPerGenerationFairnessOn}; ` +
      `ours started by a plain Temporal client: ${plain.actions.perGeneration} (CPU ${plain.cpuMsPerGeneration} ms)`,
    ...(
      [['ours', r.ours], ...columns, ['ours, plain start', plain]] as Array<
        [string, Pick<GenerationFigures, 'actions'>]
      >
    ).map(
      ([name, f]) =>
        `  ${name}: ${kinds(f)}\n    activity attempts: ${listed(f.actions.attemptsByActivity)}; ` +
        `upserts: ${listed(f.actions.upsertsByAttributes)}; markers: ${listed(f.actions.markersByName)}`,
    ),
  ].join('\n');
}
