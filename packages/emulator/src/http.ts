// Platform-shaped error answers and request validation for the emulator's routes. The emulator uses
// the very schemas the client uses, so a client that skips its own validation is still caught.
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { formatIssues, tryParse, type ValidationIssue } from '@platform-ops/client';

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
 * It answers instead of throwing (a route replies and returns), so it is built on tryParse rather
 * than parseOrThrow.
 */
export function parseOr400<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  value: unknown,
): z.output<S> | undefined {
  const checked = tryParse(schema, value);
  if (checked.ok) return checked.value;
  void sendInvalid(reply, checked.issues);
  return undefined;
}
