// mediaGeneration's flags, progress and outputs. Not workflow-safe (it reads --body): only the starter loads it.
import { CliError, ExitCode } from '../../cli/command';
import { defineView, formatSeconds, renderBar } from '../../cli/progress';
import { defineStarter, num, parseJson, readText, type FlagsOf } from '../../cli/flags';
import {
  MEDIA_OPERATIONS,
  MEDIA_STATUS_BY_TASK_STATUS,
  MediaGenerationResult,
  mediaProgressQuery,
  type MediaProgress,
  type TaskObservation,
} from '@platform-ops/client';

const flags = {
  '--operation <op>': 'media: image-to-video or text-to-video (default: image-to-video with --image)',
  '--model <name>': 'media: any model of the registry (`models` lists them), with --body or --prompt',
  '--body <request.json>': "media: the model's request body, from a JSON file (with --model)",
  '--prompt <text>': 'media: what the video shows',
  // Repeatable as the decision's --image is (one flag, one kind); a video takes one (startImage).
  '--image <url>': { repeatable: 'mediaGeneration: the start image' },
  '--end-image <url>': 'media: the last frame (image-to-video)',
  '--duration <n>': 'media: video length in seconds',
  '--sound': 'media: generate sound too',
  '--aspect-ratio <ratio>': 'media: 16:9, 9:16 or 1:1 (text-to-video)',
  '--negative-prompt <text>': 'media: what the video must not show',
  '--cfg-scale <x>': 'media: how closely to follow the prompt, 0 to 1',
  '--nsfw-detection': 'media: check the outputs for NSFW content (billed per image)',
  '--on-ambiguous <what>': 'media: fail (default) or resubmit when a submit may have created a task',
  '--member-id <id>': 'the team member whose budget pays',
} as const;

export const starter = defineStarter({
  flags,
  inputs: {
    mediaGeneration: {
      usage:
        '--prompt TEXT [--image URL] [--end-image URL] [--operation image-to-video|text-to-video] [--duration N] ' +
        '[--sound] [--aspect-ratio 16:9|9:16|1:1] [--negative-prompt TEXT] [--cfg-scale X] [--nsfw-detection] ' +
        '[--on-ambiguous fail|resubmit] [--member-id ID]; or --model NAME (--body request.json | --prompt TEXT)',
      input: (f) => {
        const submission = f.onAmbiguous === undefined ? undefined : { onAmbiguous: f.onAmbiguous };
        const common = { submission, memberId: f.memberId };
        if (f.model !== undefined || f.operation === 'async') return { ...asyncModelInput(f), ...common };
        if (f.body !== undefined) {
          throw new CliError('--body is the body of a --model; give --model too.', ExitCode.Usage);
        }
        const image = startImage(f.image);
        return {
          operation: mediaOperation(f.operation, image),
          // The schema says which fields the operation allows (aspect ratio is t2v only).
          request: {
            image,
            end_image: f.endImage,
            prompt: f.prompt,
            duration: num(f.duration, '--duration', 'request.duration'),
            sound: f.sound,
            aspect_ratio: f.aspectRatio,
            negative_prompt: f.negativePrompt,
            cfg_scale: num(f.cfgScale, '--cfg-scale', 'request.cfg_scale'),
            extra: f.nsfwDetection ? { enable_nsfw_detection: true } : undefined,
          },
          ...common,
        };
      },
    },
  },
  watch: {
    mediaGeneration: defineView({
      query: mediaProgressQuery,
      // The poll activity's newest poll: fresher between checkpoints.
      poll: {
        activity: 'pollTaskResult',
        lay: (progress, o: TaskObservation) =>
          o.taskId !== progress.taskId
            ? undefined
            : {
                status: MEDIA_STATUS_BY_TASK_STATUS[o.status] ?? o.status,
                progressPercent: o.progressPercent,
                eta: o.eta,
                polls: progress.polls - (progress.taskPolls ?? 0) + o.polls,
                taskPolls: o.polls,
              },
      },
      render: renderMediaProgress,
      changeKey: (p) => `${p.status ?? ''}|${p.progressPercent ?? ''}`,
      summary: renderMediaSummary,
    }),
  },
  examples: ['start mediaGeneration --prompt "a red fox in the snow" --duration 5 --sound --wait'],
});

function asyncModelInput(f: FlagsOf<typeof flags>) {
  if (f.model === undefined) {
    throw new CliError('--operation async needs --model <name> (see `models`).', ExitCode.Usage);
  }
  if ((f.body === undefined) === (f.prompt === undefined)) {
    throw new CliError(`--model ${f.model} needs its body: --body request.json, or --prompt TEXT.`, ExitCode.Usage);
  }
  return {
    operation: 'async',
    model: f.model,
    request: f.body !== undefined ? parseJson(readText(f.body, '--body'), `--body ${f.body}`) : { prompt: f.prompt },
  };
}

function startImage(images: string[] | undefined): string | undefined {
  if (images && images.length > 1) {
    throw new CliError(
      `mediaGeneration takes one start image, but --image was given ${images.length} times; ` +
        'use --end-image for the last frame.',
      ExitCode.Usage,
    );
  }
  return images?.[0];
}

/** Checked here, not by the schema: `operation` picks the schema's branch, and a wrong one reads "invalid shape". */
function mediaOperation(operation: string | undefined, image: string | undefined): string {
  if (operation === undefined) return image !== undefined ? 'image-to-video' : 'text-to-video';
  const detailed = MEDIA_OPERATIONS.filter((o) => o !== 'async');
  if (!(detailed as readonly string[]).includes(operation)) {
    throw new CliError(`--operation must be ${detailed.join(' or ')}, not "${operation}".`, ExitCode.Usage);
  }
  return operation;
}

const FINAL_MEDIA_STATUSES: readonly string[] = ['SUCCEEDED', 'FAILED'];

/** The generation is complete: the bar is full even when the platform reported no percent. */
const GENERATED_STATUSES: readonly string[] = ['GENERATED', 'KEEPING_OUTPUTS', 'SUCCEEDED'];

const parseTime = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/** The platform's eta counted down from the poll that reported it: it moves between polls minutes apart. */
function etaLeft(p: MediaProgress, now: number): number | undefined {
  if (p.eta === undefined) return undefined;
  const observedAt = parseTime(p.observedAt);
  return Math.max(0, p.eta - (observedAt === undefined ? 0 : Math.max(0, (now - observedAt) / 1000)));
}

/** E.g. `PROCESSING  [####------]  52%  eta 12s  polls 4  next poll in 3s  task abc`; a `width` of 0 leaves no bar. */
export function renderMediaProgress(p: MediaProgress, now: number, width?: number): string {
  const status = p.status ?? 'STARTING';
  const final = FINAL_MEDIA_STATUSES.includes(status);
  const percent = p.progressPercent ?? (GENERATED_STATUSES.includes(status) ? 100 : undefined);
  const parts = [status, renderBar(percent, width)];
  // Countdowns only while the task is being waited for: after the end they would be stale.
  const waiting = !final && !GENERATED_STATUSES.includes(status);
  const eta = waiting ? etaLeft(p, now) : undefined;
  if (eta !== undefined) parts.push(`eta ${formatSeconds(eta)}`);
  parts.push(`polls ${p.polls}`);
  const nextPollAt = waiting ? parseTime(p.nextPollAt) : undefined;
  if (nextPollAt !== undefined) {
    parts.push(nextPollAt > now ? `next poll in ${formatSeconds((nextPollAt - now) / 1000)}` : 'polling now');
  }
  if (p.generation > 1) parts.push(`generation ${p.generation}`);
  if (p.submissions > 1) parts.push(`submissions ${p.submissions}`);
  if (p.taskId !== undefined) parts.push(`task ${p.taskId}`);
  return parts.join('  ');
}

/** Lines such as `  video  s3://b/k.mp4  (1234 bytes, sha256 0123456789ab)`; none for another worker's result. */
export function renderMediaSummary(result: unknown): string[] {
  const parsed = MediaGenerationResult.safeParse(result);
  if (!parsed.success) return [];
  const { outputs, outputUrls } = parsed.data;
  const kept = outputs.map(
    (o) => `  ${o.kind}  ${o.kept.uri}  (${o.kept.bytes} bytes, sha256 ${o.kept.sha256.slice(0, 12)})`,
  );
  const ttl = (s?: number) => (s === undefined ? '' : `  (ttl ${s} s)`);
  const notKept = outputUrls.map((o) => `  ${o.kind}  ${o.url}${ttl(o.ttlSeconds)}`);
  const lines = [
    ...(kept.length > 0 ? ['Outputs kept:', ...kept] : []),
    ...(notKept.length > 0 ? ['Outputs not kept (the platform URLs expire):', ...notKept] : []),
  ];
  return lines.length > 0 ? lines : ['No outputs.'];
}
