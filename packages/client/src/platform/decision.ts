import { z } from 'zod';
import { RESERVED_KEY_RULE, RESERVED_KEYS } from '../reserved-keys';

export const DECISION_MODEL = 'vendor/decision-27b-vl';
const DECISION_MAX_IMAGES = 8;
export const DECISION_MAX_BODY_BYTES = 64 * 1024 * 1024;
export const KNOWN_DECISION_KINDS = ['yes_no', 'choice'] as const;

const StateImage = z.strictObject({
  image: z.string().regex(/^(https:\/\/[^\s]+|data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+)$/i, {
    error: 'must be an https URL or a data:image/…;base64,… URL',
  }),
});

export const DecisionState = z
  .union([z.string(), z.array(z.union([z.string(), StateImage])).min(1)])
  .superRefine((state, ctx) => {
    const images = typeof state === 'string' ? 0 : state.filter((p) => typeof p !== 'string').length;
    if (images > DECISION_MAX_IMAGES) {
      ctx.addIssue({ code: 'custom', message: `must hold at most ${DECISION_MAX_IMAGES} images (has ${images})` });
    }
  });

export type DecisionState = z.infer<typeof DecisionState>;

/** Options become the keys of the answer's probabilities: never a name of the prototype machinery. */
export const DecisionOption = z
  .string()
  .min(1)
  .max(256)
  .refine((o) => !RESERVED_KEYS.has(o), { error: RESERVED_KEY_RULE });
export const DecisionOptions = z.array(DecisionOption).min(2).max(64);

/** UTF-8 size of a string, without TextEncoder (not guaranteed in the workflow sandbox). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export const DecisionEvaluationRequest = z
  .strictObject({
    model: z.literal(DECISION_MODEL).default(DECISION_MODEL),
    kind: z.string().min(1),
    state: DecisionState,
    question: z.string().min(1),
    options: DecisionOptions.optional(),
    thinking: z.boolean().optional(),
    think_budget: z.number().int().gt(0).optional(),
    return_reasoning: z.boolean().optional(),
  })
  .superRefine((req, ctx) => {
    if (req.kind === 'choice' && req.options === undefined) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'is required when kind is "choice"' });
    }
    if (req.options && new Set(req.options).size !== req.options.length) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'must not repeat an option' });
    }
    const size = utf8Length(JSON.stringify(req));
    if (size > DECISION_MAX_BODY_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `request body must be at most 64 MB (is ${(size / 2 ** 20).toFixed(1)} MB)`,
      });
    }
  });
export type DecisionEvaluationRequest = z.input<typeof DecisionEvaluationRequest>;

export const DecisionEvaluationResponse = z.looseObject({
  probabilities: z.record(z.string(), z.number()),
  choice: z.string().optional(),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number() }).optional(),
  model: z.string().optional(),
  num_model_requests: z.number().optional(),
  thinking: z.looseObject({}).nullish(),
});
export type DecisionEvaluationResponse = z.infer<typeof DecisionEvaluationResponse>;
