// The "attach" form shared by mediaGeneration and batchJob: instead of a request, the id of a task or
// batch that already exists on the platform (submitted elsewhere), which the run follows to its end
// and keeps the outputs of. Nothing paid is sent for it.
import { z } from 'zod';

/**
 * A platform task or batch id as an attach takes it. The platform's ids are short tokens (a UUID,
 * `batch_…`); the id also becomes part of the default workflow id (`…:attach-task:<id>`, within an
 * idempotency key's 200 characters), so it is bounded to 128 characters of that key's alphabet.
 */
export const PlatformObjectId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@-]+$/, 'letters, digits and . _ : @ - only');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Exactly one of a request (`request`, parsed as before) and `{ attach: … }` (`attach`). The form the
 * caller chose reports its own issues: a plain union would report whichever branch failed least, and
 * name `operation` to someone who gave an `attach` with a bad id. `requestKeys` are the fields that
 * only a request has; one of them next to `attach` is refused by name. The pipe's input side is the
 * union, so the JSON Schema is the union's `anyOf`.
 */
export function requestOrAttach<R extends z.ZodType, A extends z.ZodType>(
  request: R,
  attach: A,
  form: { requestKeys: readonly string[]; attaches: 'task' | 'batch' },
) {
  return z.preprocess((value, ctx) => {
    if (!isRecord(value)) return value;
    const hasAttach = Object.hasOwn(value, 'attach');
    const requestGiven = form.requestKeys.filter((k) => Object.hasOwn(value, k));
    if (hasAttach && requestGiven.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['attach'],
        message: `give either attach (an existing ${form.attaches}) or a request, not both (also given: ${requestGiven.join(', ')})`,
      });
      return value;
    }
    const chosen = (hasAttach ? attach : request).safeParse(value);
    if (!chosen.success) for (const issue of chosen.error.issues) ctx.addIssue({ ...issue });
    return value;
  }, z.union([request, attach]));
}

