// mediaGeneration's search attributes, each a billed Action on Temporal Cloud when upserted: a run the service's
// client starts carries its first ones from the start and upserts only what changes (its task id with its status,
// then its end); a plain Temporal client's run upserts its first ones itself; a task's end is upserted with the step
// after it, in one command; and no run records a marker. The shared dev server and emulator.
import {
  type MediaGenerationInput,
  SearchAttributes,
  startWorkflow,
  type StartOptions,
  WorkflowType,
} from '@platform-ops/client';
import type { temporal } from '@temporalio/proto';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { recordHistory, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const input = (prompt: string, more: { memberId?: string; costEstimate?: number } = {}): MediaGenerationInput => ({
  operation: 'text-to-video',
  request: { prompt: `${prompt} [emulator:duration=1500]` },
  polling: { minIntervalMs: 100, maxIntervalMs: 400 },
  keepOutputs: false,
  ...more,
});

type Fields = temporal.api.common.v1.ISearchAttributes['indexedFields'];

/** Attributes by name and value, as the server keeps them (search attributes are never encrypted). */
function read(ctx: TemporalTestContext, fields: Fields): Record<string, unknown> {
  const { payloadConverter } = ctx.client.options.loadedDataConverter;
  const keys = Object.keys(fields ?? {}).filter((k) => k !== 'TemporalChangeVersion');
  return Object.fromEntries(keys.sort().map((k) => [k, payloadConverter.fromPayload(fields![k])]));
}

/** Each upsert's attributes, in history order. */
const upserts = (ctx: TemporalTestContext, events: HistoryEvent[]) =>
  events.flatMap((e) => {
    const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    return fields ? [read(ctx, fields)] : [];
  });

const markers = (events: HistoryEvent[]) => events.filter((e) => e.markerRecordedEventAttributes);

describe('mediaGeneration search attributes', () => {
  it("a run the service's client starts is searchable from its start and upserts only what changes", () =>
    withWorker('media-attrs-client', async (ctx) => {
      const opts: StartOptions = { taskQueue: ctx.taskQueue, workflowId: uniqueId('media-attrs') };
      const { handle } = await startWorkflow(
        ctx.client,
        WorkflowType.mediaGeneration,
        input('a harbour at dawn', { memberId: 'member-demo', costEstimate: 900 }),
        opts,
      );
      const result = await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      // The start itself holds them: a run no worker has taken yet is found by them.
      expect(read(ctx, events[0].workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields)).toEqual({
        PlatformCostEstimate: 900,
        PlatformFairnessKey: 'member-demo',
        PlatformMemberId: 'member-demo',
        PlatformOperation: 'mediaGeneration',
        PlatformPriority: 'interactive',
        PlatformStatus: 'SUBMITTING',
      });
      const seen = upserts(ctx, events);
      expect(seen).toHaveLength(2);
      expect(seen[0]).toEqual({ PlatformStatus: expect.any(String), PlatformTaskId: result.taskId });
      expect(seen[1]).toEqual({ PlatformStatus: 'SUCCEEDED' });
      expect(markers(events)).toEqual([]);
      const ended = (await handle.describe()).typedSearchAttributes;
      expect(ended.get(SearchAttributes.status)).toBe('SUCCEEDED');
      expect(ended.get(SearchAttributes.taskId)).toBe(result.taskId);
      expect(ended.get(SearchAttributes.costEstimate)).toBe(900);
      await recordHistory(handle, 'mediaGeneration-started-with-attributes');
    }));

  it('a run a plain Temporal client starts upserts its first attributes itself, the end with the step after it', () =>
    withWorker('media-attrs-plain', async (ctx) => {
      const handle = await ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
        taskQueue: ctx.taskQueue,
        workflowId: uniqueId('media-attrs'),
        args: [input('a lighthouse', { memberId: 'member-demo' })],
        // A start's own attribute that the run's first ones differ from is upserted over.
        typedSearchAttributes: [{ key: SearchAttributes.status, value: 'QUEUED_BY_CALLER' }],
      });
      const result = await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      const seen = upserts(ctx, events);
      expect(seen).toEqual([
        { PlatformMemberId: 'member-demo', PlatformOperation: 'mediaGeneration', PlatformStatus: 'SUBMITTING' },
        { PlatformStatus: expect.any(String), PlatformTaskId: result.taskId },
        { PlatformStatus: 'SUCCEEDED' },
      ]);
      expect(seen.map((s) => s.PlatformStatus)).not.toContain('GENERATED');
      expect(markers(events)).toEqual([]);
      // The query still says how the task ended.
      expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED' })]);
    }));
});
