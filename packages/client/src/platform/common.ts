import { z } from 'zod';

export const PlatformErrorBody = z.looseObject({
  code: z.union([z.number(), z.string()]).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  metadata: z.looseObject({ trace_id: z.string().optional() }).nullish(),
});
export type PlatformErrorBody = z.infer<typeof PlatformErrorBody>;

/** Numbers the spec sends as strings stay strings; some platforms send numbers, so accept both. */
export const NumericString = z.union([z.string(), z.number()]);

export const Cursor = z.string().max(1024);

export const EmptyResponse = z.looseObject({});

export const CommaList = z.union([z.string(), z.array(z.string().min(1)).transform((list) => list.join(','))]);

/** An absolute http(s) URL, by regex: z.url() needs the URL class, which the workflow sandbox may lack. */
export const HttpUrl = z.string().regex(/^https?:\/\/[^/?#\s]+[^\s]*$/i, { error: 'must be an http(s) URL' });
