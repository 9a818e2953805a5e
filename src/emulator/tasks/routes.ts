// HTTP routes of async media generation: the two video submits, task-result, and the output files
// their results point at.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { asyncSubmitPath, type PlatformPaths } from '../../platform/paths';
import {
  ImageToVideoRequest,
  requestedVideoSeconds,
  TaskResultRequest,
  TextToVideoRequest,
} from '../../platform/schemas/media';
import type { Counters } from '../counters';
import { parseOr400, sendInvalid, sendPlatformError } from '../http';
import type { Ledger } from '../ledger';
import { videoCharge, type VideoOperation } from '../pricing';
import type { RateLimiter } from '../rate-limit';
import { OUTPUT_FILES_PREFIX } from '../routes';
import { parseTaskMarkers } from './markers';
import { OUTPUT_KINDS, OUTPUT_NAME, mp4Bytes, wavBytes, type OutputKind } from './outputs';
import type { CallbackSender } from './callbacks';
import type { TaskStore } from './store';

interface TaskRouteDeps {
  tasks: TaskStore;
  ledger: Ledger;
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

export function registerTaskRoutes(app: FastifyInstance, deps: TaskRouteDeps): void {
  const { tasks, ledger, limiter, counters, paths, callbacks } = deps;

  const submit =
    (operation: VideoOperation, schema: z.ZodType<SubmitBody>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const body = parseOr400(reply, schema, request.body);
      if (!body) return reply;
      const { markers, issues } = parseTaskMarkers(markerTexts(body.prompt, body.multi_prompt));
      if (issues.length > 0) return sendInvalid(reply, issues);
      if (!limiter.take(reply, operation, request.caller.userId)) return reply;
      const seconds = requestedVideoSeconds(body);
      const sound = body.sound ?? false;
      const nsfw = body.extra?.enable_nsfw_detection ?? false;
      const charge = videoCharge(operation, seconds, sound, nsfw);
      // Refused up front, like a platform that checks the balance before queueing paid work.
      if (!ledger.canAfford(request.caller.memberId, charge.amount)) {
        return sendPlatformError(
          reply,
          400,
          'BILLING_BALANCE_NOT_ENOUGH',
          `the budget of member ${request.caller.memberId} does not cover this task (${charge.amount} in 1/10000 USD)`,
        );
      }
      const task = tasks.submit({
        operation,
        caller: request.caller,
        videoSeconds: seconds,
        sound,
        nsfwDetection: nsfw,
        markers,
        charge,
        webhookUrl: body.extra?.webhook?.url,
      });
      counters.submission(operation);
      // The "early" callback fault holds the answer back until the callback has gone.
      await callbacks.submitted(task);
      return reply.send({ task_id: task.id });
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
    const bytes = kind === 'mp4' ? mp4Bytes(found.task.token, found.task.videoSeconds) : wavBytes(found.task.token);
    return reply.type(OUTPUT_KINDS[kind]).header('cache-control', 'private, max-age=0').send(bytes);
  });
}

function onlyKey(obj: Record<string, unknown>, key: string): boolean {
  for (const k in obj) if (k !== key) return false;
  return true;
}
