// The starter's batchJob support: the progress line, the summary, and --file checked before start.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { BATCH_INLINE_MAX_BYTES, type BatchObservation, type BatchProgress } from '@platform-ops/client';
import { renderBatchProgress, renderBatchSummary, starter } from '../../src/operations/batchJob/starter';
import { withLastPoll } from '../../src/cli/progress';
import { ExitCode, toCliError } from '../../src/cli/command';
import { buildWorkflowInput } from '../../src/starter/workflow-inputs';

const now = Date.parse('2026-11-22T10:00:00Z');
const line = (id: string, model = 'm1') =>
  JSON.stringify({ custom_id: id, body: { model, messages: [{ role: 'user', content: id }] } });
const dir = mkdtempSync(path.join(tmpdir(), 'starter-batch-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('renderBatchProgress', () => {
  it('shows counts, the bar, the next poll and the window', () => {
    const p: BatchProgress = {
      status: 'PROGRESS',
      requestCounts: { total: 100, completed: 38, failed: 2 },
      polls: 7,
      nextPollAt: '2026-11-22T10:00:12Z',
      windowEndsAt: '2026-11-24T09:59:00Z',
    };
    expect(renderBatchProgress(p, now, 10)).toBe(
      'PROGRESS  [####------]   40%  completed 38  failed 2  total 100  polls 7  next poll in 12s  window ends in 47h59m',
    );
  });
  it('shows the outcome once there is one, without countdowns', () => {
    const p: BatchProgress = {
      status: 'EXPIRED',
      outcome: 'Expired',
      polls: 3,
      requestCounts: { total: 4, completed: 1, failed: 0 },
    };
    expect(renderBatchProgress(p, now, 4)).toBe('Expired  [#---]   25%  completed 1  failed 0  total 4  polls 3');
  });
});

// The follow activity's last poll, read through describe(), laid over the query's checkpoint figures.
describe('live batch progress from the pending follow activity', () => {
  const poll: BatchObservation = {
    batchId: 'b-1',
    status: 'PROGRESS',
    requestCounts: { total: 100, completed: 44, failed: 1 },
    polls: 12,
    observedAt: Date.parse('2026-11-22T10:00:05Z'),
    nextPollAt: Date.parse('2026-11-22T10:00:35Z'),
    intervalMs: 45_000,
  };
  const payloads = (details: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(details)] });
  const stillRunning = (name: string, details: unknown) => ({
    activityType: { name },
    lastFailure: { applicationFailureInfo: { type: 'StillRunning', details: payloads(details) } },
  });
  const heartbeating = (name: string, details: unknown) => ({
    activityType: { name },
    heartbeatDetails: payloads(details),
  });
  const queried: BatchProgress = {
    status: 'PROGRESS',
    batchId: 'b-1',
    requestCounts: { total: 100, completed: 40, failed: 0 },
    polls: 9,
    observedAt: '2026-11-22T09:59:50.000Z',
    nextPollAt: '2026-11-22T10:00:00.000Z',
  };

  const fresher = (progress: BatchProgress, pending: Parameters<typeof withLastPoll>[1]) =>
    withLastPoll(progress, pending, starter.watch!.batchJob!.poll!) as BatchProgress;
  const polled = (details: unknown) => [stillRunning('pollBatch', details)];

  it("reads the poll activity's last StillRunning failure", () => {
    expect(fresher(queried, polled(poll)).polls).toBe(12);
    // A failed poll's details are the platform error; other activities are not the follow.
    expect(fresher(queried, polled({ kind: 'http', status: 503 }))).toBe(queried);
    expect(fresher(queried, [stillRunning('keepBatchOutputs', poll), heartbeating('pollBatch', poll)])).toBe(queried);
    expect(fresher(queried, undefined)).toBe(queried);
  });

  it('takes the newest poll when a cancelled follow is still pending beside the next one', () => {
    const older = { ...poll, polls: 3, observedAt: poll.observedAt - 60_000 };
    expect(fresher(queried, [stillRunning('pollBatch', older), stillRunning('pollBatch', poll)]).polls).toBe(12);
  });

  it('lays a newer poll of the same batch over the query, until there is an outcome', () => {
    expect(fresher(queried, polled(poll))).toEqual({
      ...queried,
      requestCounts: poll.requestCounts,
      polls: 12,
      observedAt: '2026-11-22T10:00:05.000Z',
      nextPollAt: '2026-11-22T10:00:35.000Z',
    });
    expect(renderBatchProgress(fresher(queried, polled(poll)), now, 10)).toContain('completed 44  failed 1');
    expect(fresher(queried, polled({ ...poll, observedAt: Date.parse(queried.observedAt!) }))).toBe(queried);
    expect(fresher(queried, polled({ ...poll, batchId: 'b-2' }))).toBe(queried);
    expect(fresher({ ...queried, outcome: 'Completed' }, polled(poll))).toEqual({ ...queried, outcome: 'Completed' });
  });
});

describe('renderBatchSummary', () => {
  it('says where the files were kept', () => {
    expect(
      renderBatchSummary({
        outcome: 'Completed',
        requestCounts: { total: 3, completed: 2, failed: 1 },
        output: { uri: 'file:///o' },
        errors: { uri: 'file:///e' },
        summary: { perRequestUri: 'file:///r' },
      }),
    ).toEqual([
      'Batch Completed: 2 completed, 1 failed, 3 in all.',
      '  output       file:///o',
      '  errors       file:///e',
      '  per request  file:///r',
    ]);
  });
});

describe('start batchJob flags', () => {
  it('puts a small file inline', () => {
    const f = file('small.jsonl', `${line('a')}\n${line('b')}\n`);
    expect(buildWorkflowInput('batchJob', { file: f, endpoint: '/v1/chat/completions' })).toMatchObject({
      endpoint: '/v1/chat/completions',
      requests: [{ custom_id: 'a' }, { custom_id: 'b' }],
    });
  });
  it('refuses a bad line before anything starts, naming it', () => {
    const f = file('dup.jsonl', `${line('a')}\n${line('a')}\n`);
    expect(() => buildWorkflowInput('batchJob', { file: f, endpoint: '/v1/chat/completions' })).toThrow(
      /line 2\.custom_id: must be unique/,
    );
  });
  it('hands a large file to the worker by path', () => {
    const big = Array.from({ length: Math.ceil(BATCH_INLINE_MAX_BYTES / 100) + 10 }, (_, i) =>
      line(`req-${i}-${'x'.repeat(40)}`),
    );
    const f = file('big.jsonl', `${big.join('\n')}\n`);
    const input = buildWorkflowInput('batchJob', { file: f, endpoint: '/v1/chat/completions' }) as {
      inputFileUri: string;
    };
    expect(input.inputFileUri).toBe(`file://${f}`);
  });
  it('names a missing endpoint, and needs exactly one source', () => {
    expect(() => buildWorkflowInput('batchJob', { file: 'x' })).toThrow(/--endpoint is required/);
    expect(() => buildWorkflowInput('batchJob', { endpoint: '/v1/completions' })).toThrow(
      /--file .* or --input-file-id/,
    );
  });
});

// cancel-batch once the batch has ended: a sentence and exit 2, whichever way the server says so.
describe('cancel-batch refusals', () => {
  it("reads the validator's refusal as a sentence", () => {
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ message: 'The batch has already finished (completed); there is nothing to cancel.' }),
    );
    expect(toCliError(refused, 'b-1')).toMatchObject({
      message:
        'Workflow b-1 refused the request: The batch has already finished (completed); there is nothing to cancel.',
      exitCode: ExitCode.Usage,
    });
  });
  it('says a closed workflow has finished rather than that it was not found', () => {
    // What the client throws for an Update to a closed workflow (checked against the dev server).
    const closed = new WorkflowNotFoundError('workflow execution already completed', 'b-1', undefined);
    expect(toCliError(closed, 'b-1')).toMatchObject({
      message: 'Workflow b-1 has already finished, so it takes no more requests; describe it to see how it ended.',
      exitCode: ExitCode.Usage,
    });
    const missing = new WorkflowNotFoundError('workflow not found for ID: b-2', 'b-2', undefined);
    expect(toCliError(missing, 'b-2')).toMatchObject({
      message: 'Workflow b-2 was not found.',
      exitCode: ExitCode.NotFound,
    });
  });
});
