// mediaGeneration end to end on the shared dev server and emulator (clock speed 10): the happy paths
// of both operations, re-generation, final failures, bad input, and a history that does not grow
// with the number of polls.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  FailureType,
  type MediaGenerationInput,
  mediaProgressQuery,
  SearchAttributes,
  WorkflowType,
} from '@platform-ops/client';
import type { mediaGeneration } from '../../src/operations/mediaGeneration/workflows';
import { pngDataUrl } from '../helpers/images';
import { failureOf } from '../helpers/failures';
import { eventTypes, recordHistory, uniqueId, withWorker, type TemporalTestContext } from '../helpers/temporal';

const FAST = { minIntervalMs: 100, maxIntervalMs: 400 };

function start(ctx: TemporalTestContext, input: MediaGenerationInput, prefix = 'media') {
  return ctx.client.workflow.start<typeof mediaGeneration>(WorkflowType.mediaGeneration, {
    taskQueue: ctx.taskQueue,
    workflowId: uniqueId(prefix),
    args: [input],
  });
}

const sha256Of = (uri: string) =>
  createHash('sha256')
    .update(readFileSync(fileURLToPath(uri)))
    .digest('hex');

describe('mediaGeneration', () => {
  it('image-to-video: submits once, polls, keeps the video with its size and sha256', () =>
    withWorker('media-i2v', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'image-to-video',
        request: { image: pngDataUrl(640, 360), prompt: 'a cat walks [emulator:duration=2000]', duration: 5 },
        polling: FAST,
        memberId: 'member-demo',
        costEstimate: 1200,
      });
      const result = await handle.result();
      expect(result.operation).toBe('image-to-video');
      expect(result.submissions).toEqual([expect.objectContaining({ outcome: 'accepted', taskId: result.taskId })]);
      expect(result.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED' })]);
      expect(result.outputs).toHaveLength(1);
      const [video] = result.outputs;
      expect(video.kind).toBe('video');
      expect(video.kept.uri).toMatch(/^file:\/\//);
      expect(video.kept.bytes).toBeGreaterThan(0);
      expect(sha256Of(video.kept.uri)).toBe(video.kept.sha256);
      expect(Date.parse(video.expiresAt!)).toBeGreaterThan(Date.parse(result.timings.doneAt));
      expect(Date.parse(result.timings.doneAt)).toBeGreaterThanOrEqual(Date.parse(result.timings.submittedAt!));
      expect(result.polls).toBeGreaterThanOrEqual(1);

      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(SearchAttributes.operation)).toBe('mediaGeneration');
      expect(typedSearchAttributes.get(SearchAttributes.taskId)).toBe(result.taskId);
      expect(typedSearchAttributes.get(SearchAttributes.status)).toBe('SUCCEEDED');
      expect(typedSearchAttributes.get(SearchAttributes.memberId)).toBe('member-demo');
      expect(typedSearchAttributes.get(SearchAttributes.costEstimate)).toBe(1200);
      const progress = await handle.query(mediaProgressQuery);
      expect(progress).toMatchObject({ status: 'SUCCEEDED', taskId: result.taskId, polls: result.polls });
      await recordHistory(handle, 'mediaGeneration-i2v-1.3');
    }));

  it('text-to-video with sound: keeps the video and the audio, reports the NSFW cost facts', () =>
    withWorker('media-t2v', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: {
          prompt: 'waves at dusk [emulator:duration=1500]',
          sound: true,
          aspect_ratio: '9:16',
          extra: { enable_nsfw_detection: true },
        },
        polling: FAST,
      });
      const result = await handle.result();
      expect(result.outputs.map((o) => o.kind)).toEqual(['video', 'audio']);
      for (const o of result.outputs) expect(sha256Of(o.kept.uri)).toBe(o.kept.sha256);
      expect(result.cost).toMatchObject({ nsfwDetection: true, images: 0, nsfwSurcharge: 0 });
      await recordHistory(handle, 'mediaGeneration-t2v-1.3');
    }));

  it('generates again after a retryable failure, and records both generations', () =>
    withWorker('media-regen', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: `fox [emulator:fail_first=1:${uniqueId('r')}] [emulator:duration=500]` },
        polling: FAST,
        keepOutputs: false,
      });
      const result = await handle.result();
      expect(result.generations).toEqual([
        expect.objectContaining({ generation: 1, status: 'TASK_STATUS_FAILED', reason: 'INTERNAL_ERROR' }),
        expect.objectContaining({ generation: 2, status: 'TASK_STATUS_SUCCEED', taskId: result.taskId }),
      ]);
      expect(result.submissions.map((s) => s.outcome)).toEqual(['accepted', 'accepted']);
      expect(result.possibleDuplicates).toBe(0);
      expect(result.outputUrls).toEqual([expect.objectContaining({ kind: 'video' })]);
      await recordHistory(handle, 'mediaGeneration-regenerated-1.3');
    }));

  it('does not generate again for a reason that cannot be fixed, and carries the reason', () =>
    withWorker('media-illegal', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'bad [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=300]' },
        polling: FAST,
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.GenerationFailed);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('ILLEGAL_PROMPT');
      const [details] = failure.details as [{ reason: string; generations: unknown[] }];
      expect(details.reason).toBe('ILLEGAL_PROMPT');
      expect(details.generations).toHaveLength(1);
      await recordHistory(handle, 'mediaGeneration-illegal-1.3');
    }));

  it('stops after the configured number of re-generations', () =>
    withWorker('media-exhausted', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: `x [emulator:fail_first=9:${uniqueId('x')}] [emulator:duration=200]` },
        polling: FAST,
        regeneration: { maxRegenerations: 1 },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.GenerationFailed);
      expect(failure.message).toMatch(/INTERNAL_ERROR.*after 2 generations/);
    }));

  it('fails as DeadlineExceeded when the task outlives the overall deadline, naming what it saw last', () =>
    withWorker('media-deadline', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'text-to-video',
        request: { prompt: 'slow [emulator:duration=3600000]' },
        polling: { minIntervalMs: 500, maxIntervalMs: 2_000 },
        deadlineSeconds: 10,
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.DeadlineExceeded);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toMatch(/did not end before the deadline .*last seen TASK_STATUS_PROCESSING/);
    }));

  it('fails fast on bad input, naming the field, with no activity scheduled', () =>
    withWorker('media-invalid', async (ctx) => {
      const handle = await start(ctx, {
        operation: 'image-to-video',
        request: { image: pngDataUrl(100, 100), prompt: 'p', duration: 20 },
      });
      const failure = await failureOf(handle.result());
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('request.duration');
      expect(failure.message).toContain('request.image');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      await recordHistory(handle, 'mediaGeneration-invalid');
    }));

  it('keeps the history the same size however many polls are made (retry-as-poll)', () =>
    withWorker('media-history', async (ctx) => {
      const run = async (durationMs: number) => {
        const handle = await start(ctx, {
          operation: 'text-to-video',
          // Polls as often as it can whatever the eta says (about once a second: each poll is an
          // activity retry), so the poll count follows the duration.
          request: { prompt: `long [emulator:duration=${durationMs}]` },
          polling: { minIntervalMs: 100, maxIntervalMs: 100 },
          keepOutputs: false,
        });
        const result = await handle.result();
        return { polls: result.polls, events: (await eventTypes(handle)).length };
      };
      const short = await run(3_000); // 0.3 s real: a handful of polls
      const long = await run(150_000); // 15 s real
      expect(long.polls).toBeGreaterThanOrEqual(12);
      // Checkpoints (status changes) are bounded, so the difference is too.
      expect(long.events).toBeLessThanOrEqual(short.events + 24);
      expect(long.events).toBeLessThan(80);
    }));

  it('completes waiting generations that were evicted from the worker cache (cache size 1)', () =>
    withWorker(
      'media-evicted',
      async (ctx) => {
        // Three waits, one cached workflow: every checkpoint of the other two replays them from history.
        const handles = await Promise.all(
          [2_000, 3_000, 4_000].map((ms) =>
            start(ctx, {
              operation: 'text-to-video',
              request: { prompt: `evicted [emulator:duration=${ms * 10}]` },
              keepOutputs: false,
            }),
          ),
        );
        const results = await Promise.all(handles.map((h) => h.result()));
        for (const r of results)
          expect(r.generations).toEqual([expect.objectContaining({ status: 'TASK_STATUS_SUCCEED' })]);
      },
      { env: { WORKER_MAX_CACHED_WORKFLOWS: '1' } },
    ));
});
