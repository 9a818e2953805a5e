// HTTP routes of async media generation: the two video submits, any model of the registry
// (/v3/async/<model>), task-result, and the output files their results point at.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  AsyncBody,
  asyncSubmitPath,
  describeZodIssues,
  ImageToVideoRequest,
  MODEL_REGISTRY,
  type OutputKind as MediaKind,
  type PlatformPaths,
  requestedVideoSeconds,
  TaskResultRequest,
  TextToVideoRequest,
} from '@platform-ops/client';
import type { Counters } from '../counters';
import { parseOr400, sendInvalid, sendPlatformError } from '../http';
import type { Accounts } from '../accounts';
import { modelTaskCharge, videoCharge, type VideoCharge, type VideoOperation } from '../pricing';
import type { RateLimiter } from '../rate-limit';
import { OUTPUT_FILES_PREFIX } from '../routes';
import { parseTaskMarkers } from './markers';
import { FILE_OF_KIND, OUTPUT_KINDS, OUTPUT_NAME, outputBytes, type OutputKind } from './outputs';
import type { CallbackSender } from './callbacks';
import type { ModelTask } from './result';
import type { TaskStore } from './store';

interface TaskRouteDeps {
  tasks: TaskStore;
  accounts: Accounts;
  limiter: RateLimiter;
  counters: Counters;
  paths: PlatformPaths;
  callbacks: CallbackSender;
}

/** Two 10 MB images as base64 data URLs plus the rest of the body. */
const SUBMIT_BODY_LIMIT = 32 * 1024 * 1024;

type Shot = string | { prompt: string; duration: number };

/** Texts that may carry prompt markers, with the field each sits in (for 400 answers). */
function markerTexts(
  prompt: string | undefined,
  shots: readonly Shot[] | undefined,
): { field: string; text: string }[] {
  const texts: { field: string; text: string }[] = [];
  if (prompt !== undefined) texts.push({ field: 'prompt', text: prompt });
  shots?.forEach((s, i) =>
    texts.push(
      typeof s === 'string'
        ? { field: `multi_prompt[${i}]`, text: s }
        : { field: `multi_prompt[${i}].prompt`, text: s.prompt },
    ),
  );
  return texts;
}

interface SubmitBody {
  prompt?: string;
  multi_prompt?: Shot[];
  duration?: number;
  sound?: boolean;
  extra?: { enable_nsfw_detection?: boolean; webhook?: { url: string } };
}

/** The task type a model's task reports, by its first output kind. */
const TASK_TYPE_OF_KIND: Record<MediaKind, string> = {
  image: 'TXT_TO_IMG',
  video: 'TXT_TO_VIDEO',
  audio: 'TXT_TO_SPEECH',
};

interface Accepted {
  operation: VideoOperation | 'submitAsyncTask';
  texts: { field: string; text: string }[];
  charge: VideoCharge;
  videoSeconds: number;
  sound: boolean;
  nsfwDetection: boolean;
  model?: ModelTask;
  /** `extra.webhook.url`: where the task's end is called back (./callbacks.ts). */
  webhookUrl?: string;
}

/** A generic model's `extra.webhook.url`, when its body carries one that is a string. */
function webhookUrlOf(body: Record<string, unknown>): string | undefined {
  const url = (body.extra as { webhook?: { url?: unknown } } | undefined)?.webhook?.url;
  return typeof url === 'string' ? url : undefined;
}

export function registerTaskRoutes(app: FastifyInstance, deps: TaskRouteDeps): void {
  const { tasks, accounts, limiter, counters, paths, callbacks } = deps;

  /** Markers, quota, balance, then the task: the same for every model. */
  const accept = async (request: FastifyRequest, reply: FastifyReply, a: Accepted): Promise<FastifyReply> => {
    const { markers, issues } = parseTaskMarkers(a.texts);
    if (issues.length > 0) return sendInvalid(reply, issues);
    if (!limiter.take(reply, a.operation, request.caller.userId)) return reply;
    // Refused up front, like a platform that checks the balance before queueing paid work.
    if (!accounts.canAfford(request.caller.memberId, a.charge.amount)) {
      return sendPlatformError(
        reply,
        400,
        'BILLING_BALANCE_NOT_ENOUGH',
        `the budget of member ${request.caller.memberId} does not cover this task (${a.charge.amount} in 1/10000 USD)`,
      );
    }
    const { texts: _texts, ...task } = a;
    const created = tasks.submit({ ...task, caller: request.caller, markers });
    counters.submission(a.operation);
    // The "early" callback fault holds the answer back until the callback has gone.
    await callbacks.submitted(created);
    return reply.send({ task_id: created.id });
  };

  const submit =
    (operation: VideoOperation, schema: z.ZodType<SubmitBody>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const body = parseOr400(reply, schema, request.body);
      if (!body) return reply;
      const seconds = requestedVideoSeconds(body);
      const sound = body.sound ?? false;
      const nsfw = body.extra?.enable_nsfw_detection ?? false;
      return accept(request, reply, {
        operation,
        texts: markerTexts(body.prompt, body.multi_prompt),
        charge: videoCharge(operation, seconds, sound, nsfw),
        videoSeconds: seconds,
        sound,
        nsfwDetection: nsfw,
        webhookUrl: body.extra?.webhook?.url,
      });
    };

  app.post(
    asyncSubmitPath(paths.imageToVideoModel),
    { bodyLimit: SUBMIT_BODY_LIMIT },
    submit('submitImageToVideo', ImageToVideoRequest as z.ZodType<SubmitBody>),
  );
  app.post(
    asyncSubmitPath(paths.textToVideoModel),
    { bodyLimit: SUBMIT_BODY_LIMIT },
    submit('submitTextToVideo', TextToVideoRequest as z.ZodType<SubmitBody>),
  );

  // Any other model: the registry's, or one its pass-through rule takes, checked by its schema.
  app.post<{ Params: { model: string } }>(
    asyncSubmitPath(':model'),
    { bodyLimit: SUBMIT_BODY_LIMIT },
    async (request, reply) => {
      const model = MODEL_REGISTRY.forPath(request.params.model);
      if (!model) {
        return sendPlatformError(reply, 404, 'MODEL_NOT_FOUND', `no async model ${request.params.model}`);
      }
      const body = parseOr400(reply, AsyncBody, request.body);
      if (!body) return reply;
      const bodyIssues = MODEL_REGISTRY.bodyIssues(model.model, body);
      if (bodyIssues.length > 0) return sendInvalid(reply, describeZodIssues(bodyIssues));
      return accept(request, reply, {
        operation: 'submitAsyncTask',
        // Markers may sit in any top-level text (prompt, text …).
        texts: Object.entries(body).flatMap(([field, v]) => (typeof v === 'string' ? [{ field, text: v }] : [])),
        charge: modelTaskCharge(model.pricePerTask),
        videoSeconds: 5,
        sound: false,
        nsfwDetection: (body.extra as { enable_nsfw_detection?: unknown } | undefined)?.enable_nsfw_detection === true,
        model: {
          product: { productId: model.path, productName: model.path },
          taskType: TASK_TYPE_OF_KIND[model.outputs[0]],
          files: model.outputs.map((k) => FILE_OF_KIND[k]),
        },
        webhookUrl: webhookUrlOf(body),
      });
    },
  );

  // The hot route: benchmarks poll it thousands of times a second. The common, valid query skips zod.
  app.get(paths.taskResult, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    let taskId = query.task_id;
    if (typeof taskId !== 'string' || taskId === '' || !onlyKey(query, 'task_id')) {
      const parsed = parseOr400(reply, TaskResultRequest, query);
      if (!parsed) return reply;
      taskId = parsed.task_id;
    }
    const id = taskId as string;
    const task = tasks.get(id, request.caller.userId);
    if (!task) return sendPlatformError(reply, 404, 'TASK_NOT_FOUND', `task ${id} not found`);
    counters.poll(id);
    return reply.type('application/json; charset=utf-8').send(tasks.resultJson(task));
  });

  // Output files: no auth (the URL is the credential, as with presigned links), gone after the TTL.
  app.get<{ Params: { name: string } }>(`${OUTPUT_FILES_PREFIX}/outputs/:name`, (request, reply) => {
    const match = OUTPUT_NAME.exec(request.params.name);
    const found = match ? tasks.output(match[1], match[2] as OutputKind) : undefined;
    if (!match || !found) return sendPlatformError(reply, 404, 'FILE_NOT_FOUND', 'no such output file');
    if (found === 'expired') {
      return sendPlatformError(reply, 410, 'FILE_EXPIRED', 'this output URL has expired (its TTL passed)');
    }
    const kind = match[2] as OutputKind;
    const bytes = outputBytes(kind, found.task.token, found.task.videoSeconds);
    return reply.type(OUTPUT_KINDS[kind]).header('cache-control', 'private, max-age=0').send(bytes);
  });
}

function onlyKey(obj: Record<string, unknown>, key: string): boolean {
  for (const k in obj) if (k !== key) return false;
  return true;
}
