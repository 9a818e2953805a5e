import { z } from 'zod';

/** The platform's error body: `{code, reason, message, metadata: {trace_id}}` (platform-notes, Errors). */
export const PlatformErrorBody = z.looseObject({
  code: z.union([z.number(), z.string()]).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  metadata: z.looseObject({ trace_id: z.string().optional() }).nullish(),
});
export type PlatformErrorBody = z.infer<typeof PlatformErrorBody>;

/** Numbers the spec sends as strings stay strings; some platforms send numbers, so accept both. */
export const NumericString = z.union([z.string(), z.number()]);

/** A cursor for paged lists: 0-1024 characters (spec, Limits). */
export const Cursor = z.string().max(1024);

/** An empty JSON object, or whatever the platform adds to it. */
export const EmptyResponse = z.looseObject({});

/** Comma-separated filter values may be given as a list; they go on the wire joined by commas. */
export const CommaList = z.union([z.string(), z.array(z.string().min(1)).transform((list) => list.join(','))]);

/** An absolute http(s) URL, by regex: z.url() needs the URL class, which the workflow sandbox may lack. */
export const HttpUrl = z.string().regex(/^https?:\/\/[^/?#\s]+[^\s]*$/i, { error: 'must be an http(s) URL' });
