import { z } from 'zod';
import { imageSourceProblems } from './image';
import { HttpUrl, NumericString } from './common';

const PROMPT_MAX = 2500;
const DURATION_MIN = 3;
const DURATION_MAX = 15;

const Prompt = z.string().max(PROMPT_MAX);
const Duration = z.number().int().min(DURATION_MIN).max(DURATION_MAX);
const CfgScale = z.number().min(0).max(1);

const ImageSource = z.string().superRefine((value, ctx) => {
  for (const problem of imageSourceProblems(value)) ctx.addIssue({ code: 'custom', message: problem });
});

const SubmitExtra = z.looseObject({
  webhook: z
    .strictObject({
      url: HttpUrl,
      test_mode: z.strictObject({ enabled: z.boolean(), return_task_status: z.string().optional() }).optional(),
    })
    .optional(),
  enable_nsfw_detection: z.boolean().optional(),
});

const Shot = z.strictObject({ prompt: Prompt, duration: Duration });

export const ImageToVideoRequest = z
  .strictObject({
    image: ImageSource,
    prompt: Prompt,
    sound: z.boolean().optional(),
    duration: Duration.optional(),
    cfg_scale: CfgScale.optional(),
    end_image: ImageSource.optional(),
    multi_prompt: z.array(Shot).min(1).optional(),
    negative_prompt: Prompt.optional(),
    extra: SubmitExtra.optional(),
  })
  .superRefine((req, ctx) => {
    if (req.end_image !== undefined && req.multi_prompt !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['end_image'], message: 'cannot be combined with multi_prompt' });
    }
  });
export type ImageToVideoRequest = z.input<typeof ImageToVideoRequest>;

const T2V_ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;

const TextShot = z.union([Prompt, Shot]);

export const TextToVideoRequest = z
  .strictObject({
    prompt: Prompt.optional(),
    sound: z.boolean().optional(),
    duration: Duration.optional(),
    cfg_scale: CfgScale.optional(),
    aspect_ratio: z.enum(T2V_ASPECT_RATIOS).optional(),
    multi_prompt: z.array(TextShot).min(1).optional(),
    negative_prompt: Prompt.optional(),
    extra: SubmitExtra.optional(),
  })
  .superRefine((req, ctx) => {
    // `prompt` is required and marked mutually exclusive with `multi_prompt`: exactly one of them.
    if (req.prompt !== undefined && req.multi_prompt !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'cannot be combined with multi_prompt' });
    } else if (req.prompt === undefined && req.multi_prompt === undefined) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'is required (or give multi_prompt instead)' });
    }
  });
export type TextToVideoRequest = z.input<typeof TextToVideoRequest>;

const DEFAULT_VIDEO_SECONDS = 5;

export function requestedVideoSeconds(req: {
  duration?: number;
  multi_prompt?: ReadonlyArray<string | { duration: number }>;
}): number {
  const shots = req.multi_prompt;
  if (shots && shots.length > 0 && shots.every((s) => typeof s !== 'string')) {
    return shots.reduce((sum, s) => sum + (typeof s === 'string' ? 0 : s.duration), 0);
  }
  return req.duration ?? DEFAULT_VIDEO_SECONDS;
}

export const SubmitTaskResponse = z.looseObject({ task_id: z.string().min(1) });

export const TaskResultRequest = z.strictObject({ task_id: z.string().min(1) });

const TERMINAL_TASK_STATUSES: readonly string[] = ['TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'];
/** TASK_STATUS_UNKNOWN (known to the official SDK) and any new status count as not terminal. */
export const isTerminalTaskStatus = (status: string): boolean => TERMINAL_TASK_STATUSES.includes(status);

const TaskImage = z.looseObject({
  image_url: z.string(),
  image_url_ttl: NumericString.optional(),
  image_type: z.string().optional(),
});
const TaskVideo = z.looseObject({
  video_url: z.string(),
  video_url_ttl: NumericString.optional(),
  video_type: z.string().optional(),
});
const TaskAudio = z.looseObject({
  audio_url: z.string(),
  audio_url_ttl: NumericString.optional(),
  audio_type: z.string().optional(),
});

const outputList = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

export const TaskResult = z.looseObject({
  extra: z.looseObject({ enable_nsfw_detection: z.boolean().optional() }).nullish(),
  task: z.looseObject({
    task_id: z.string(),
    status: z.string(),
    reason: z.string().nullish(),
    eta: z.number().nullish(),
    progress_percent: z.number().nullish(),
  }),
  images: outputList(TaskImage),
  videos: outputList(TaskVideo),
  audios: outputList(TaskAudio),
});
export type TaskResult = z.infer<typeof TaskResult>;

/** NSFW detection surcharge: 0.0015 USD per generated image, i.e. 15 in 1/10000 USD. */
export const NSFW_DETECTION_COST_PER_IMAGE = 15;
