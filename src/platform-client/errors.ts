// One error type for every platform client failure; its fields survive toJSON and never carry the API key.
import { formatIssues, type ValidationIssue } from '@platform-ops/client';

type PlatformErrorKind =
  /** Refused before sending: the request breaks a rule of the spec. */
  | 'invalid_request'
  /** The platform answered with a non-2xx status. */
  | 'http'
  /** No answer: connection refused or reset, DNS failure. */
  | 'network'
  /** No answer within the call's timeout. The request may have reached the platform. */
  | 'timeout'
  /** A 2xx answer whose body does not parse as the documented response. */
  | 'malformed_response';

/** What a PlatformError is made of: its fields but `retryable`, which is derived. */
export type PlatformErrorInit = Pick<PlatformError, 'kind' | 'operation' | 'message'> &
  Partial<Pick<PlatformError, 'status' | 'reason' | 'code' | 'platformMessage' | 'traceId' | 'retryAfterMs'>> &
  Partial<Pick<PlatformError, 'issues' | 'maybeDelivered'>>;

/** Retryable when transient, a garbled 2xx body too (a passing fault of the server or a proxy). */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  readonly kind!: PlatformErrorKind;
  readonly operation!: string;
  readonly status?: number;
  readonly reason?: string;
  readonly code?: number | string;
  readonly platformMessage?: string;
  readonly traceId?: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly issues?: ValidationIssue[];
  /** Whether the request may have reached the platform (matters for costly submits). */
  readonly maybeDelivered: boolean;

  constructor({ message, ...init }: PlatformErrorInit) {
    super(message);
    Object.assign(this, init);
    this.maybeDelivered = init.maybeDelivered ?? false;
    const { kind, status } = init;
    this.retryable =
      kind === 'network' ||
      kind === 'timeout' ||
      kind === 'malformed_response' ||
      (kind === 'http' && status !== undefined && (status === 408 || status === 429 || status >= 500));
  }

  static invalidRequest(operation: string, issues: ValidationIssue[]): PlatformError {
    return new PlatformError({
      kind: 'invalid_request',
      operation,
      reason: 'INVALID_REQUEST',
      issues,
      message: `${operation}: invalid request, nothing was sent: ${formatIssues(issues)}`,
    });
  }

  toJSON() {
    return { ...this, message: this.message };
  }
}

/** The longest Retry-After honoured: "99999999" would park a poll for years; past this, deadlines decide. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** Retry-After (delta-seconds or an HTTP date) in ms from `now`, capped; undefined if absent or bad. */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header || header.length > 64) return undefined;
  const trimmed = header.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Math.round(Number(trimmed) * 1000);
  else {
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** Removes every occurrence of the given secrets from a text (error bodies may echo headers). */
export const redact = (text: string, secrets: ReadonlyArray<string | undefined>): string =>
  secrets.reduce<string>((out, s) => (s && s.length >= 4 ? out.split(s).join('[REDACTED]') : out), text);

// ── Submits ───────────────────────────────────────────────────────────────
// Whether a failed submit may have created a paid task: with no idempotency key, only a clear refusal is resent.
export type SubmitFailureClass =
  /** The platform answered that it did not take the request (429, 503, its own 500): safe to resend. */
  | 'refused'
  /** It may have created the task (timeout or reset after sending, 502/504, a garbled 2xx). */
  | 'ambiguous'
  /** It will never take this request (bad input, auth, budget): do not resend. */
  | 'rejected';

export function classifySubmitFailure(err: PlatformError): SubmitFailureClass {
  switch (err.kind) {
    case 'invalid_request':
      return 'rejected';
    case 'malformed_response':
      // A 2xx came back: the task most likely exists, but its id is unreadable.
      return 'ambiguous';
    case 'timeout':
    case 'network':
      return err.maybeDelivered ? 'ambiguous' : 'refused';
    case 'http': {
      const status = err.status ?? 0;
      if (status === 429) return 'refused';
      // Only the platform's own error body says it refused; without it a proxy may have forwarded the request.
      if ((status === 500 || status === 503) && err.reason !== undefined) return 'refused';
      if (status >= 500 || status === 408) return 'ambiguous';
      return 'rejected';
    }
  }
}
