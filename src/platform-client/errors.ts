// One error type for every platform client failure; its fields never carry the API key.
import { formatIssues, type ValidationIssue } from '@platform-ops/client';

type PlatformErrorKind = 'invalid_request' | 'http' | 'network' | 'timeout' | 'malformed_response';

export type PlatformErrorInit = Pick<PlatformError, 'kind' | 'operation' | 'message'> &
  Partial<Pick<PlatformError, 'status' | 'reason' | 'code' | 'platformMessage' | 'traceId' | 'retryAfterMs'>> &
  Partial<Pick<PlatformError, 'issues' | 'maybeDelivered'>>;

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
  readonly maybeDelivered: boolean;

  constructor({ message, ...init }: PlatformErrorInit) {
    super(message);
    Object.assign(this, init);
    this.maybeDelivered = init.maybeDelivered ?? false;
    const { kind, status } = init;
    // A garbled 2xx body too: a passing fault of the server or a proxy.
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

// "99999999" would park a poll for years; past this, deadlines decide.
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header || header.length > 64) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(Math.round(Number(trimmed) * 1000), MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

export const redact = (text: string, secrets: ReadonlyArray<string | undefined>): string =>
  secrets.reduce<string>((out, s) => (s && s.length >= 4 ? out.split(s).join('[REDACTED]') : out), text);

/** Whether a failed submit may have created a paid task: with no idempotency key, only a clear refusal is resent. */
export type SubmitFailureClass = 'refused' | 'ambiguous' | 'rejected';

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
