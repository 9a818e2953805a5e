// Platform-shaped error answers and request validation for the emulator's routes. The emulator uses
// the very schemas the client uses, so a client that skips its own validation is still caught.
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { describeZodError, formatIssues, type ValidationIssue } from '../platform/validation';

const newTraceId = (): string => randomUUID().replace(/-/g, '');

/** Sends `{code, reason, message, metadata: {trace_id}}` with the given status. */
export function sendPlatformError(
  reply: FastifyReply,
  status: number,
  reason: string,
  message: string,
  metadata: Record<string, unknown> = {},
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({ code: status, reason, message, metadata: { trace_id: newTraceId(), ...metadata } });
}

/** 400 INVALID_REQUEST_BODY naming every bad field, in the platform's wording. */
export function sendInvalid(reply: FastifyReply, issues: ValidationIssue[]): FastifyReply {
  return sendPlatformError(reply, 400, 'INVALID_REQUEST_BODY', formatIssues(issues, { platformWording: true }), {
    issues,
  });
}

/**
 * Parses `value` with `schema`; on failure answers 400 and returns undefined, so a route reads:
 *   const body = parseOr400(reply, Schema, request.body); if (!body) return reply;
 */
export function parseOr400<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  value: unknown,
): z.output<S> | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  void sendInvalid(reply, describeZodError(parsed.error));
  return undefined;
}
