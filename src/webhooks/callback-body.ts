// A callback's body as the platform sends it (platform-notes): `{event_type: "ASYNC_TASK_RESULT",
// payload: <task-result>}`, parsed with the same lenient schema as task-result, and boiled down to
// the signal the workflow acts on.
import { z } from 'zod';
import { outputsOf } from '../activities/media/poll';
import type { TaskCallback } from '../workflows/media/contract';
import { TaskCallback as TaskCallbackSchema } from '../workflows/media/contract';
import { TaskResult } from '../platform/schemas/media';
import { tryParse, type ValidationIssue } from '../platform/validation';

export const CALLBACK_EVENT_TYPE = 'ASYNC_TASK_RESULT';

const CallbackBody = z.looseObject({
  event_type: z.literal(CALLBACK_EVENT_TYPE),
  payload: TaskResult,
});

/** The signal for a callback body, or every rule it breaks (a bounded task id and outputs included). */
export function parseCallbackBody(
  body: unknown,
  generation: number,
): { ok: true; callback: TaskCallback } | { ok: false; issues: ValidationIssue[] } {
  const parsed = tryParse(CallbackBody, body);
  if (!parsed.ok) return parsed;
  const { task, extra } = parsed.value.payload;
  const signal = tryParse(TaskCallbackSchema, {
    taskId: task.task_id,
    generation,
    status: task.status,
    reason: task.reason || undefined,
    outputs: outputsOf(parsed.value.payload),
    nsfwDetection: extra?.enable_nsfw_detection === true,
  });
  if (!signal.ok) {
    const where: Record<string, string> = { taskId: 'payload.task.task_id', status: 'payload.task.status' };
    return {
      ok: false,
      issues: signal.issues.map((i) => ({ ...i, field: where[i.field] ?? `payload (${i.field})` })),
    };
  }
  return { ok: true, callback: signal.value };
}
