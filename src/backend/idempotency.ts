// Idempotent starts: the caller's idempotency key becomes the workflow id, and the start attaches to
// the execution that key already names instead of starting a second (paid) job. The input's
// fingerprint rides in the run's memo, so the same key with a different request is refused instead
// of silently answering with another request's job.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { WorkflowTypeName } from '../api';
import { invalidInput } from '../api/validate';
import { parseOrThrow } from '../platform/validation';

/** Printable, bounded, and safe inside a workflow id and a URL path. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:@-]+$/, 'letters, digits and . _ : @ - only');

/** The workflow id a key names: one per workflow type, so a key can be reused across types. */
export function idempotentWorkflowId(type: WorkflowTypeName, key: string): string {
  const checked = parseOrThrow(IdempotencyKey, key, (issues) =>
    invalidInput(
      `${type} start`,
      issues.map((i) => ({ field: 'idempotencyKey', rule: i.rule })),
    ),
  );
  return `${type}:${checked}`;
}

/** sha256 of the input as JSON with its object keys sorted: equal requests, equal fingerprints. */
export function inputFingerprint(input: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(sortedKeys(input)))
    .digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/** The same idempotency key was used for a different request. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(
    readonly workflowId: string,
    readonly runId: string | undefined,
  ) {
    super(
      `Idempotency key already used for a different request: workflow ${workflowId} ` +
        `(run ${runId ?? 'unknown'}) was started with another input. Use a new key for a new request.`,
    );
  }
}
