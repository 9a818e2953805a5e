// The one place that talks HTTP to the platform: builds requests with ky, maps every failure to a
// PlatformError, and parses answers with zod. It never retries (retrying is the workflows' job) and
// never lets the API key reach an error or a log line.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import ky, { HTTPError, TimeoutError, type KyInstance } from 'ky';
import type { z } from 'zod';
import type { PlatformConfig } from './config';
import { PlatformError, parseRetryAfter, redact } from './errors';
import { BodyStalledError, BodyTooLargeError, readBodyText } from './response-body';
import { PlatformErrorBody } from '../platform/schemas/common';
import { formatIssues, parseOrThrow } from '../platform/validation';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface CallOptions {
  /** Aborts the call (an activity passes its cancellation signal). The abort error is rethrown as is. */
  signal?: AbortSignal;
  /** Overrides the configured per-call timeout. */
  timeoutMs?: number;
}

export interface RequestSpec {
  operation: string;
  method: HttpMethod;
  path: string;
  searchParams?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: FormData;
  /** The spec lists Content-Type: application/json as required on some GET pages. */
  jsonContentType?: boolean;
}

/** What a caller may observe of each call: never headers, never the key. */
export interface CallEvent {
  operation: string;
  method: HttpMethod;
  path: string;
  status?: number;
  durationMs: number;
  error?: string;
}

export interface TransportOptions {
  fetch?: typeof fetch;
  onCall?: (event: CallEvent) => void;
}

const NETWORK_CODES_NOT_DELIVERED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The tracer of the platform calls: the API's no-op unless a provider is registered (src/tracing). */
const TRACER = trace.getTracer('platform-ops');

export class Transport {
  private readonly ky: KyInstance;
  /** The platform's host name for the spans: never the whole base URL, which could carry credentials. */
  private readonly host: string;

  constructor(
    private readonly config: PlatformConfig,
    private readonly options: TransportOptions = {},
  ) {
    this.host = URL.canParse(config.baseUrl) ? new URL(config.baseUrl).hostname : '';
    this.ky = ky.create({
      prefixUrl: config.baseUrl,
      retry: 0,
      timeout: config.timeoutMs,
      throwHttpErrors: false,
      headers: { authorization: `Bearer ${config.apiKey}`, accept: 'application/json' },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** Sends the request and returns the parsed 2xx body. */
  async json<S extends z.ZodType>(spec: RequestSpec, schema: S, call: CallOptions = {}): Promise<z.output<S>> {
    const text = await this.text(spec, call);
    let raw: unknown;
    try {
      raw = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw this.malformed(spec, 'the body is not JSON');
    }
    return parseOrThrow(schema, raw, (issues) => this.malformed(spec, formatIssues(issues)));
  }

  /**
   * Sends the request and returns the raw 2xx body (file content is JSONL, not JSON). With tracing on
   * (src/tracing), the call is a client span, child of the activity's, and its context goes to the
   * platform as a W3C `traceparent` header. The span's attributes are the call's operation, method,
   * path and status: never a header, a query string or a body (the key is in a header).
   */
  async text(spec: RequestSpec, call: CallOptions = {}): Promise<string> {
    return TRACER.startActiveSpan(
      `${spec.method} ${spec.operation}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': spec.method,
          'url.path': spec.path,
          'server.address': this.host,
          'platform.operation': spec.operation,
        },
      },
      (span) => this.traced(span, spec, call).finally(() => span.end()),
    );
  }

  private async traced(span: Span, spec: RequestSpec, call: CallOptions): Promise<string> {
    const started = Date.now();
    const event = (extra: Partial<CallEvent>) => {
      if (extra.status !== undefined) span.setAttribute('http.response.status_code', extra.status);
      if (extra.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: extra.error });
      this.options.onCall?.({
        operation: spec.operation,
        method: spec.method,
        path: spec.path,
        durationMs: Date.now() - started,
        ...extra,
      });
    };
    // Empty when tracing is off (the API's no-op propagator).
    const traceHeaders: Record<string, string> = {};
    propagation.inject(context.active(), traceHeaders);
    const headers = {
      ...traceHeaders,
      ...(spec.jsonContentType ? { 'content-type': 'application/json' } : {}),
    };
    const timeoutMs = call.timeoutMs ?? this.config.timeoutMs;
    let response: Response;
    try {
      response = await this.ky(spec.path.replace(/^\/+/, ''), {
        method: spec.method,
        searchParams: compact(spec.searchParams),
        json: spec.json,
        body: spec.body,
        signal: call.signal,
        timeout: timeoutMs,
        // Only when needed: an explicit `headers: undefined` would drop the instance's headers.
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      });
    } catch (err) {
      // A cancelled activity must see its own abort, not a platform failure.
      if (call.signal?.aborted) throw err;
      const mapped = this.transportFailure(spec, err);
      event({ error: mapped.message });
      throw mapped;
    }
    let text: string;
    try {
      // ky's timeout stops at the headers: the body gets the same time between any two chunks.
      text = await readBodyText(response, timeoutMs);
    } catch (err) {
      if (call.signal?.aborted) throw err;
      const mapped = this.transportFailure(spec, err);
      event({ status: response.status, error: mapped.message });
      throw mapped;
    }
    if (!response.ok) {
      const mapped = this.httpFailure(spec, response, text);
      event({ status: response.status, error: mapped.message });
      throw mapped;
    }
    event({ status: response.status });
    return text;
  }

  private scrub(text: string): string {
    return redact(text, [this.config.apiKey]);
  }

  private httpFailure(spec: RequestSpec, response: Response, text: string): PlatformError {
    let body: PlatformErrorBody = {};
    try {
      const parsed = PlatformErrorBody.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // Not JSON (a proxy's HTML page, say): the status alone has to do.
    }
    const platformMessage = body.message !== undefined ? this.scrub(body.message) : undefined;
    const traceId = body.metadata?.trace_id;
    const parts = [`HTTP ${response.status}`, body.reason, platformMessage].filter(Boolean).join(' ');
    return new PlatformError({
      kind: 'http',
      operation: spec.operation,
      status: response.status,
      reason: body.reason,
      code: typeof body.code === 'number' || typeof body.code === 'string' ? body.code : undefined,
      platformMessage,
      traceId,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      // A 5xx may come after the platform acted; a 4xx means it refused.
      maybeDelivered: response.status >= 500 || response.status === 408,
      message: `${spec.operation} failed: ${parts}${traceId ? ` (trace_id ${traceId})` : ''}`,
    });
  }

  private transportFailure(spec: RequestSpec, err: unknown): PlatformError {
    const sending = spec.method !== 'GET';
    if (err instanceof BodyStalledError) {
      return new PlatformError({
        kind: 'timeout',
        operation: spec.operation,
        // Headers came: the platform has taken the request in.
        maybeDelivered: sending,
        message: `${spec.operation} failed: the answer's body stalled (no bytes within the timeout)`,
      });
    }
    if (err instanceof BodyTooLargeError) return this.malformed(spec, err.message);
    if (err instanceof TimeoutError) {
      return new PlatformError({
        kind: 'timeout',
        operation: spec.operation,
        maybeDelivered: sending,
        message: `${spec.operation} failed: no answer within the timeout`,
      });
    }
    if (err instanceof HTTPError) return this.httpFailure(spec, err.response, '');
    const code = causeCode(err);
    const detail = this.scrub(err instanceof Error ? err.message : String(err));
    return new PlatformError({
      kind: 'network',
      operation: spec.operation,
      maybeDelivered: sending && !(code && NETWORK_CODES_NOT_DELIVERED.has(code)),
      message: `${spec.operation} failed: network error${code ? ` ${code}` : ''} (${detail})`,
    });
  }

  private malformed(spec: RequestSpec, detail: string): PlatformError {
    return new PlatformError({
      kind: 'malformed_response',
      operation: spec.operation,
      // A 2xx arrived: whatever was asked for may well have happened.
      maybeDelivered: spec.method !== 'GET',
      message: `${spec.operation} failed: malformed response: ${this.scrub(detail)}`,
    });
  }
}

function compact(
  params: Record<string, string | number | boolean | undefined> | undefined,
): Record<string, string | number | boolean> | undefined {
  if (!params) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out[k] = v;
  return out;
}
