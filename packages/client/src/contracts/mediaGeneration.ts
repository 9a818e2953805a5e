import { z } from 'zod';
import { AsyncBody, MODEL_REGISTRY, ModelName, OUTPUT_KINDS } from '../models';
import { ImageToVideoRequest, requestedVideoSeconds, TextToVideoRequest, type TaskResult } from '../platform/media';
import {
  ATTRIBUTION,
  defineOperation,
  member,
  notBelow,
  PlatformObjectId,
  query,
  requestOrAttach,
  Resumed,
  SearchAttributes,
  signal,
  workflow,
  type PlatformReportedStatus,
} from '../contract';

export const MEDIA_OPERATIONS = ['image-to-video', 'text-to-video', 'async'] as const;
export type MediaOperation = (typeof MEDIA_OPERATIONS)[number];

export const DEFAULT_NON_RETRYABLE_REASONS = [
  'ILLEGAL_PROMPT',
  'ILLEGAL_IMAGE',
  'ILLEGAL_CONTENT',
  'INVALID_REQUEST_BODY',
  'BILLING_BALANCE_NOT_ENOUGH',
  'INSUFFICIENT_BALANCE',
  'BUDGET_EXCEEDED',
] as const;

export const PollingOptions = z
  .strictObject({
    minIntervalMs: z.number().int().min(50).max(600_000).default(1_000),
    maxIntervalMs: z.number().int().min(50).max(3_600_000).default(30_000),
    marginMs: z.number().int().min(0).max(60_000).default(250),
  })
  .refine(...notBelow('maxIntervalMs', 'minIntervalMs'));
export type ParsedPollingOptions = z.output<typeof PollingOptions>;

export const SubmissionOptions = z.strictObject({
  maxAttempts: z.number().int().min(1).max(20).default(6),
  onAmbiguous: z.enum(['fail', 'resubmit']).default('fail'),
  backoffInitialMs: z.number().int().min(10).max(600_000).default(1_000),
  backoffMaxMs: z.number().int().min(10).max(3_600_000).default(60_000),
  priorityAgingMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
});

export const RegenerationOptions = z.strictObject({
  maxRegenerations: z.number().int().min(0).max(10).default(2),
  nonRetryableReasons: z
    .array(z.string().min(1).max(128))
    .max(100)
    .default([...DEFAULT_NON_RETRYABLE_REASONS]),
});

const FollowOptions = {
  polling: PollingOptions.default(PollingOptions.parse({})),
  deadlineSeconds: z.number().int().min(10).max(604_800).default(7_200),
  keepOutputs: z.boolean().default(true),
  ...ATTRIBUTION,
};
const CommonOptions = {
  ...FollowOptions,
  submission: SubmissionOptions.default(SubmissionOptions.parse({})),
  regeneration: RegenerationOptions.default(RegenerationOptions.parse({})),
};

const AsyncModelInput = z
  .strictObject({ operation: z.literal('async'), model: ModelName, request: AsyncBody, ...CommonOptions })
  .superRefine((input, ctx) => {
    // A model that is no path segment has its issue already.
    if (!ModelName.safeParse(input.model).success) return;
    if (!MODEL_REGISTRY.resolve(input.model)) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: MODEL_REGISTRY.unknownRule(input.model) });
      return;
    }
    for (const issue of MODEL_REGISTRY.bodyIssues(input.model, input.request)) {
      ctx.addIssue({ ...issue, path: ['request', ...issue.path] });
    }
  });

export const MediaGenerationRequestInput = z.discriminatedUnion('operation', [
  z.strictObject({ operation: z.literal('image-to-video'), request: ImageToVideoRequest, ...CommonOptions }),
  z.strictObject({ operation: z.literal('text-to-video'), request: TextToVideoRequest, ...CommonOptions }),
  AsyncModelInput,
]);
export type MediaGenerationRequestInput = z.input<typeof MediaGenerationRequestInput>;

export const MediaAttachInput = z.strictObject({
  attach: z.strictObject({ taskId: PlatformObjectId }),
  ...FollowOptions,
});
export type MediaAttachInput = z.input<typeof MediaAttachInput>;

export const MediaGenerationInput = requestOrAttach(MediaGenerationRequestInput, MediaAttachInput, {
  requestKeys: ['operation', 'model', 'request', 'submission', 'regeneration'],
  attaches: 'task',
}).meta({
  title: 'mediaGeneration input',
  description:
    'Runs one v3 async generation: submit once, poll by the eta, generate again on retryable failures, and keep ' +
    'the outputs before their URLs expire. `request` is the platform body: image-to-video and text-to-video ' +
    'are the spec\'s two detailed models; "async" submits to any model of the registry by its name (`model`). ' +
    'Or `attach: {taskId}` instead of a request: follow a task submitted elsewhere to its end and keep its outputs.',
});
export type MediaGenerationInput = MediaGenerationRequestInput | MediaAttachInput;
export type ParsedMediaGenerationInput = z.output<typeof MediaGenerationInput>;
export type ParsedMediaGenerationRequestInput = z.output<typeof MediaGenerationRequestInput>;

export const SubmissionAttempt = z.object({
  generation: z.number().int(),
  attempt: z.number().int(),
  at: z.string().optional(),
  outcome: z.enum(['accepted', 'refused', 'ambiguous', 'rejected']),
  taskId: z.string().optional(),
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  possibleDuplicate: z.boolean().optional(),
  resumed: Resumed.optional(),
});
export type SubmissionAttempt = z.infer<typeof SubmissionAttempt>;

export const TaskObservation = z.object({
  taskId: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  eta: z.number().optional(),
  progressPercent: z.number().optional(),
  polls: z.number().int(),
  /** Real epoch ms of the poll. */
  observedAt: z.number(),
  nextPollAt: z.number().optional(),
  firstProcessingAt: z.number().optional(),
});
export type TaskObservation = z.infer<typeof TaskObservation>;

/** The end an observation's eta predicts, in epoch ms; the eta is whole seconds rounded up, so never early. */
export const predictedEnd = (o: Pick<TaskObservation, 'observedAt' | 'eta'>): number | undefined =>
  o.eta !== undefined && o.eta > 0 ? o.observedAt + o.eta * 1000 : undefined;

export const TaskOutputRef = z.object({
  kind: z.enum(OUTPUT_KINDS),
  url: z.string(),
  ttlSeconds: z.number().optional(),
  type: z.string().optional(),
});
export type TaskOutputRef = z.infer<typeof TaskOutputRef>;

export function outputsOf(result: TaskResult): TaskOutputRef[] {
  const ref = (kind: TaskOutputRef['kind'], url: string, ttl: string | number | undefined, type?: string) => {
    const n = Number(ttl);
    return { kind, url, ttlSeconds: ttl === undefined || !Number.isFinite(n) ? undefined : n, type };
  };
  return [
    ...result.videos.map((v) => ref('video', v.video_url, v.video_url_ttl, v.video_type)),
    ...result.images.map((i) => ref('image', i.image_url, i.image_url_ttl, i.image_type)),
    ...result.audios.map((a) => ref('audio', a.audio_url, a.audio_url_ttl, a.audio_type)),
  ];
}

export const KeptOutput = z.object({
  kind: z.enum(OUTPUT_KINDS),
  originalUrl: z.string(),
  ttlSeconds: z.number().optional(),
  expiresAt: z.string().optional(),
  kept: z.object({ uri: z.string(), bytes: z.number().int(), sha256: z.string(), contentType: z.string().optional() }),
});
export type KeptOutput = z.infer<typeof KeptOutput>;

export const GenerationAttempt = z.object({
  generation: z.number().int(),
  taskId: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  polls: z.number().int(),
});

export const MediaGenerationResult = z
  .object({
    operation: z.enum(MEDIA_OPERATIONS).optional(),
    attached: z.literal(true).optional(),
    model: z
      .object({
        name: z.string(),
        path: z.string(),
        passThrough: z.boolean(),
        expectedOutputs: z.array(z.enum(OUTPUT_KINDS)),
        missingOutputs: z.array(z.enum(OUTPUT_KINDS)),
      })
      .optional(),
    taskId: z.string(),
    outputs: z.array(KeptOutput),
    outputUrls: z.array(z.object({ kind: z.string(), url: z.string(), ttlSeconds: z.number().optional() })),
    timings: z.object({
      submittedAt: z.string().optional(),
      attachedAt: z.string().optional(),
      firstProcessingAt: z.string().optional(),
      doneAt: z.string(),
    }),
    polls: z.number().int(),
    generations: z.array(GenerationAttempt),
    submissions: z.array(SubmissionAttempt),
    possibleDuplicates: z.number().int(),
    resumed: z.array(Resumed).optional(),
    cost: z.object({
      nsfwDetection: z.boolean(),
      images: z.number().int(),
      /** 0.0015 USD per generated image with detection on, in 1/10000 USD. */
      nsfwSurcharge: z.number().int(),
      nsfwSurchargeUsd: z.string(),
      note: z.string(),
    }),
  })
  .meta({ title: 'mediaGeneration result' });
export type MediaGenerationResult = z.infer<typeof MediaGenerationResult>;

const TASK_STATUS_NAMES = {
  TASK_STATUS_QUEUED: 'QUEUED',
  TASK_STATUS_PROCESSING: 'PROCESSING',
  TASK_STATUS_SUCCEED: 'GENERATED',
  TASK_STATUS_FAILED: 'GENERATION_FAILED',
} as const;

type MediaStep = 'SUBMITTING' | 'ATTACHING' | 'REGENERATING' | 'SUBMITTED' | 'KEEPING_OUTPUTS' | 'SUCCEEDED' | 'FAILED';
export type MediaGenerationOwnStatus = MediaStep | (typeof TASK_STATUS_NAMES)[keyof typeof TASK_STATUS_NAMES];
export type MediaGenerationStatus = MediaGenerationOwnStatus | PlatformReportedStatus;
export const MEDIA_STATUS_BY_TASK_STATUS: Readonly<Record<string, MediaGenerationOwnStatus>> = TASK_STATUS_NAMES;

export interface MediaProgress {
  taskId?: string;
  generation: number;
  status?: MediaGenerationStatus;
  progressPercent?: number;
  eta?: number;
  polls: number;
  taskPolls?: number;
  nextPollAt?: string;
  observedAt?: string;
  submissions: number;
  outputs?: { kind: string; uri: string }[];
  resumedFrom?: string;
}

const MAX_OUTPUTS = 64;

/** A task's end as the webhook receiver (src/webhooks) tells it; checked again, as anyone may signal. */
export const TaskCallback = z.strictObject({
  taskId: z.string().min(1).max(256),
  generation: z.number().int().min(1).max(1_000),
  status: z.string().min(1).max(64),
  reason: z.string().max(2_000).optional(),
  outputs: z.array(TaskOutputRef.extend({ url: z.string().max(8_192) })).max(MAX_OUTPUTS),
  nsfwDetection: z.boolean(),
});
export type TaskCallback = z.infer<typeof TaskCallback>;

/** A run's status until its first submit answers, or its attached task is first read. */
export const mediaStartStatus = (i: ParsedMediaGenerationInput): MediaGenerationOwnStatus =>
  'attach' in i ? 'ATTACHING' : 'SUBMITTING';

export const mediaGeneration = defineOperation({
  workflows: {
    mediaGeneration: {
      // A generic model's body is the model's own: only the two video operations have seconds to show.
      ...workflow(MediaGenerationInput, MediaGenerationResult, (i) =>
        'attach' in i
          ? [`attach task ${i.attach.taskId}`, member(i.memberId)]
          : i.operation === 'async'
            ? [i.model, member(i.memberId)]
            : [i.operation, `${requestedVideoSeconds(i.request)} s`, member(i.memberId)],
      ),
      startAttributes: (i: ParsedMediaGenerationInput) => [
        { key: SearchAttributes.status, value: mediaStartStatus(i) },
        ...(i.memberId ? [{ key: SearchAttributes.memberId, value: i.memberId }] : []),
        ...('attach' in i ? [{ key: SearchAttributes.taskId, value: i.attach.taskId }] : []),
        ...(i.costEstimate === undefined ? [] : [{ key: SearchAttributes.costEstimate, value: i.costEstimate }]),
      ],
    },
  },
  queries: { mediaProgress: query<MediaProgress>('mediaProgress') },
  signals: { taskCallback: signal<[TaskCallback]>('taskCallback') },
});
export const mediaProgressQuery = mediaGeneration.queries.mediaProgress;
export const taskCallbackSignal = mediaGeneration.signals.taskCallback;
