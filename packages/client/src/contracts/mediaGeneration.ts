// The contract of mediaGeneration: one v3 async task, from submit to kept outputs (src/operations/mediaGeneration/README.md).
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
  signal,
  workflow,
  type PlatformReportedStatus,
} from '../contract';

export const MEDIA_OPERATIONS = ['image-to-video', 'text-to-video', 'async'] as const;
export type MediaOperation = (typeof MEDIA_OPERATIONS)[number];

/** Failure reasons another generation cannot fix (a refused input, short money); any other is worth one. */
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
    /** No two polls of one task closer than this, whatever the hints say. */
    minIntervalMs: z.number().int().min(50).max(600_000).default(1_000),
    /** No gap longer than this, however far away the eta is. */
    maxIntervalMs: z.number().int().min(50).max(3_600_000).default(30_000),
    /** Added to a hint-based wait, so the poll lands just after the predicted end, not just before. */
    marginMs: z.number().int().min(0).max(60_000).default(250),
  })
  .refine(...notBelow('maxIntervalMs', 'minIntervalMs'));
export type ParsedPollingOptions = z.output<typeof PollingOptions>;

export const SubmissionOptions = z.strictObject({
  /** Ambiguous attempts per generation, at most (what a budget reserves); refused ones are sent until the deadline. */
  maxAttempts: z.number().int().min(1).max(20).default(6),
  /** A submit that may have made a task without its id: `fail` (AmbiguousSubmission) or `resubmit` (a duplicate). */
  onAmbiguous: z.enum(['fail', 'resubmit']).default('fail'),
  /** First wait between attempts refused by the platform (429 waits for Retry-After when given). */
  backoffInitialMs: z.number().int().min(10).max(600_000).default(1_000),
  backoffMaxMs: z.number().int().min(10).max(3_600_000).default(60_000),
  /**
   * A submit that waited this long for its turn on the quota, below the interactive class, is sent
   * again one class up (docs/fairness.md): how long a lower class can be kept waiting by a higher one.
   */
  priorityAgingMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
});

export const RegenerationOptions = z.strictObject({
  /** Generations after the first one, for a task that ended TASK_STATUS_FAILED with a retryable reason. */
  maxRegenerations: z.number().int().min(0).max(10).default(2),
  /** Reasons never worth another generation. Replaces the default list when given. */
  nonRetryableReasons: z
    .array(z.string().min(1).max(128))
    .max(100)
    .default([...DEFAULT_NON_RETRYABLE_REASONS]),
});

const FollowOptions = {
  polling: PollingOptions.default(PollingOptions.parse({})),
  /** Overall deadline of the whole generation (all attempts), from the workflow's start. */
  deadlineSeconds: z.number().int().min(10).max(604_800).default(7_200),
  /** Copy the outputs to the artifact store (default) or only report their URLs. */
  keepOutputs: z.boolean().default(true),
  ...ATTRIBUTION,
};
const CommonOptions = {
  ...FollowOptions,
  submission: SubmissionOptions.default(SubmissionOptions.parse({})),
  regeneration: RegenerationOptions.default(RegenerationOptions.parse({})),
};

/** Any v3 async model by its name in packages/client/src/model-registry.json, its body checked by the model's schema. */
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

/** The request forms: submit a new task (and pay for it). budgetGatedJob's jobs take only these. */
export const MediaGenerationRequestInput = z.discriminatedUnion('operation', [
  z.strictObject({ operation: z.literal('image-to-video'), request: ImageToVideoRequest, ...CommonOptions }),
  z.strictObject({ operation: z.literal('text-to-video'), request: TextToVideoRequest, ...CommonOptions }),
  AsyncModelInput,
]);
export type MediaGenerationRequestInput = z.input<typeof MediaGenerationRequestInput>;

/** The attach form: follow a task submitted elsewhere to its end (never generated again: its request is unknown). */
export const MediaAttachInput = z.strictObject({
  attach: z.strictObject({ taskId: PlatformObjectId }),
  ...FollowOptions,
});
export type MediaAttachInput = z.input<typeof MediaAttachInput>;
export type ParsedMediaAttachInput = z.output<typeof MediaAttachInput>;

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

/** One submit attempt, as recorded by the workflow (every attempt, so duplicates can be seen). */
export const SubmissionAttempt = z.object({
  generation: z.number().int(),
  attempt: z.number().int(),
  /** When the attempt ended (ISO, the worker's clock); absent when the worker running it was lost. */
  at: z.string().optional(),
  outcome: z.enum(['accepted', 'refused', 'ambiguous', 'rejected']),
  taskId: z.string().optional(),
  /** The failure type and message for attempts that did not return a task id. */
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  /** True when this attempt was sent although an earlier one may already have created a task. */
  possibleDuplicate: z.boolean().optional(),
  /** After a reset: the task came from the same submit of an earlier run, not paid again. */
  resumed: Resumed.optional(),
});
export type SubmissionAttempt = z.infer<typeof SubmissionAttempt>;

/** What one poll saw; the poll activity reports it at checkpoints, and in its StillRunning failure between them. */
export const TaskObservation = z.object({
  taskId: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  eta: z.number().optional(),
  progressPercent: z.number().optional(),
  /** Polls of this task so far (all attempts of the poll activity). */
  polls: z.number().int(),
  /** Real epoch ms of the poll. */
  observedAt: z.number(),
  /** Real epoch ms of the next poll planned (absent once terminal). */
  nextPollAt: z.number().optional(),
  /** Real epoch ms when PROCESSING was first seen. */
  firstProcessingAt: z.number().optional(),
});
export type TaskObservation = z.infer<typeof TaskObservation>;

/** The end an observation's eta predicts, in epoch ms; the eta is whole seconds rounded up, so never early. */
export const predictedEnd = (o: Pick<TaskObservation, 'observedAt' | 'eta'>): number | undefined =>
  o.eta !== undefined && o.eta > 0 ? o.observedAt + o.eta * 1000 : undefined;

/** An output URL of a finished task, as task-result lists it (TTL in seconds, parsed leniently). */
export const TaskOutputRef = z.object({
  kind: z.enum(OUTPUT_KINDS),
  url: z.string(),
  ttlSeconds: z.number().optional(),
  /** The platform's video_type / image_type / audio_type (mp4, jpeg, wav …). */
  type: z.string().optional(),
});
export type TaskOutputRef = z.infer<typeof TaskOutputRef>;

/** A finished task's outputs, as its result (a poll's) or its callback (the webhook's) lists them. */
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
  /** ISO time after which the original URL stops working (from the TTL and when the task was seen done). */
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
    /** The form submitted; absent when the run attached to an existing task. */
    operation: z.enum(MEDIA_OPERATIONS).optional(),
    /** True when the run followed a task submitted elsewhere (input `attach`) instead of submitting one. */
    attached: z.literal(true).optional(),
    /** The "async" form: the model asked for, the path submitted to, and the output kinds it expects. */
    model: z
      .object({
        name: z.string(),
        path: z.string(),
        passThrough: z.boolean(),
        expectedOutputs: z.array(z.enum(OUTPUT_KINDS)),
        /** Expected kinds the finished task did not produce (a registry entry to check). */
        missingOutputs: z.array(z.enum(OUTPUT_KINDS)),
      })
      .optional(),
    taskId: z.string(),
    outputs: z.array(KeptOutput),
    /** Outputs reported but not copied (keepOutputs false). */
    outputUrls: z.array(z.object({ kind: z.string(), url: z.string(), ttlSeconds: z.number().optional() })),
    timings: z.object({
      /** Absent for an attached task: it was submitted elsewhere. */
      submittedAt: z.string().optional(),
      /** When an attached task was first seen. */
      attachedAt: z.string().optional(),
      firstProcessingAt: z.string().optional(),
      doneAt: z.string(),
    }),
    polls: z.number().int(),
    generations: z.array(GenerationAttempt),
    submissions: z.array(SubmissionAttempt),
    possibleDuplicates: z.number().int(),
    /** The submits taken from earlier runs after a reset (docs/retries.md#a-reset-never-pays-twice). */
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

/** mediaGeneration's business status: its own steps, and the task's status by our name or as the platform wrote it. */
type MediaStep = 'SUBMITTING' | 'ATTACHING' | 'REGENERATING' | 'SUBMITTED' | 'KEEPING_OUTPUTS' | 'SUCCEEDED' | 'FAILED';
export type MediaGenerationOwnStatus = MediaStep | (typeof TASK_STATUS_NAMES)[keyof typeof TASK_STATUS_NAMES];
export type MediaGenerationStatus = MediaGenerationOwnStatus | PlatformReportedStatus;
export const MEDIA_STATUS_BY_TASK_STATUS: Readonly<Record<string, MediaGenerationOwnStatus>> = TASK_STATUS_NAMES;

/** What the `status` query's detail holds for mediaGeneration (the progress bar reads it). */
export interface MediaProgress {
  taskId?: string;
  generation: number;
  status?: MediaGenerationStatus;
  progressPercent?: number;
  eta?: number;
  polls: number;
  /** Polls of the current task (the rest were made for earlier generations). */
  taskPolls?: number;
  nextPollAt?: string;
  observedAt?: string;
  submissions: number;
  outputs?: { kind: string; uri: string }[];
  /** After a reset: the earlier run whose submit this run's task came from. */
  resumedFrom?: string;
}

/** At most this many outputs per task: a video, its audio and a few images are what tasks give. */
const MAX_OUTPUTS = 64;

/** A task's end as the webhook receiver (src/webhooks) tells it; checked again, as anyone may signal. */
export const TaskCallback = z.strictObject({
  taskId: z.string().min(1).max(256),
  /** The generation whose submit carried the callback URL (from the URL, checked by its token). */
  generation: z.number().int().min(1).max(1_000),
  status: z.string().min(1).max(64),
  reason: z.string().max(2_000).optional(),
  outputs: z.array(TaskOutputRef.extend({ url: z.string().max(8_192) })).max(MAX_OUTPUTS),
  nsfwDetection: z.boolean(),
});
export type TaskCallback = z.infer<typeof TaskCallback>;

export const mediaGeneration = defineOperation({
  workflows: {
    // A generic model's body is the model's own: only the two video operations have seconds to show.
    mediaGeneration: workflow(MediaGenerationInput, MediaGenerationResult, (i) =>
      'attach' in i
        ? [`attach task ${i.attach.taskId}`, member(i.memberId)]
        : i.operation === 'async'
          ? [i.model, member(i.memberId)]
          : [i.operation, `${requestedVideoSeconds(i.request)} s`, member(i.memberId)],
    ),
  },
  queries: {
    /** Live progress: status, progress, eta, poll count and next poll time. */
    mediaProgress: query<MediaProgress>('mediaProgress'),
  },
  signals: {
    /** The task's end from the platform's callback (src/webhooks): the wait stops; repeats are ignored. */
    taskCallback: signal<[TaskCallback]>('taskCallback'),
  },
});
export const mediaProgressQuery = mediaGeneration.queries.mediaProgress;
export const taskCallbackSignal = mediaGeneration.signals.taskCallback;
