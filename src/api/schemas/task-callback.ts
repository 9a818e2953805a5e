// What the webhook receiver (src/webhooks) tells a mediaGeneration about its task's end: the
// platform's callback, checked and boiled down to what the workflow acts on. The workflow checks it
// again (anyone who may signal the workflow could send one), so this schema is the single definition.
import { z } from 'zod';
import { TaskOutputRef } from './media';

/** At most this many outputs per task: a video, its audio and a few images are what tasks give. */
const MAX_OUTPUTS = 64;

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
