// The one place that talks HTTP to the platform: it never retries (the workflows do) nor lets the API key out.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import ky, { TimeoutError, type KyInstance } from 'ky';
import type { z } from 'zod';
import type { PlatformConfig } from './config';
import { PlatformError, parseRetryAfter, redact } from './errors';
import { formatIssues, parseOrThrow, PlatformErrorBody } from '@platform-ops/client';

type HttpMethod = 'GET' | 'POST' | 'PUT';

/** The answer is the raw body (a file's JSONL content), bounded in size like any other. */
export const TEXT = 'text';
type Answer = z.ZodType | typeof TEXT;
type Parsed<A extends Answer> = A extends z.ZodType ? z.output<A> : string;

/** Larger than any answer the spec describes (a batch's output file is at most a few hundred MB). */
const MAX_RESPONSE_BYTES = 512 * 2 ** 20;

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

interface Payload {
  query?: Query;
  json?: unknown;
  form?: FormData;
  /** The spec lists Content-Type: application/json as required on some GET pages. */
  jsonContentType?: boolean;
}

type RequestSpec = Payload & { operation: string; method: HttpMethod; path: string };

export interface CallEvent extends Pick<RequestSpec, 'operation' | 'method' | 'path'> {
  status?: number;
  durationMs: number;
  error?: string;
}

export interface TransportOptions {
  onCall?: (event: CallEvent) => void;
}

const STALLED = "the answer's body stalled (no bytes within the timeout)";

const NETWORK_CODES_NOT_DELIVERED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// undici wraps the socket's error.
function causeCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth >= 4) return undefined;
  const { code, cause } = err as { code?: unknown; cause?: unknown };
  return typeof code === 'string' ? code : causeCode(cause, depth + 1);
}

const TRACER = trace.getTracer('platform-ops');

export class Transport {
  private readonly ky: KyInstance;
  /** Never the whole base URL, which could carry credentials. */
  private readonly host: string;

  constructor(
    readonly config: PlatformConfig,
    private readonly options: TransportOptions = {},
  ) {
    this.host = URL.canParse(config.baseUrl) ? new URL(config.baseUrl).hostname : '';
    this.ky = ky.create({
      prefixUrl: config.baseUrl,
      retry: 0,
      timeout: config.timeoutMs,
      throwHttpErrors: false,
      headers: { authorization: `Bearer ${config.apiKey}`, accept: 'application/json' },
    });
  }

  /** Its span's attributes never hold a header, query or body. */
  protected async call<A extends Answer>(
    method: HttpMethod,
    operation: string,
    path: string,
    payload: Payload,
    answer: A,
    opts: CallOptions = {},
  ): Promise<Parsed<A>> {
    const spec: RequestSpec = { operation, method, path, ...payload };
    const attributes = {
      'http.request.method': method,
      'url.path': path,
      'server.address': this.host,
      'platform.operation': operation,
    };
    const text = await TRACER.startActiveSpan(`${method} ${operation}`, { kind: SpanKind.CLIENT, attributes }, (span) =>
      this.traced(span, spec, opts).finally(() => span.end()),
    );
    if (answer === TEXT) return text as Parsed<A>;
    let raw: unknown;
    try {
      raw = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw this.malformed(spec, 'the body is not JSON');
    }
    return parseOrThrow(answer, raw, (issues) => this.malformed(spec, formatIssues(issues))) as Parsed<A>;
  }

  private async traced(span: Span, spec: RequestSpec, call: CallOptions): Promise<string> {
    const started = Date.now();
    let status: number | undefined;
    const event = (error?: string) => {
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      const { operation, method, path } = spec;
      this.options.onCall?.({ operation, method, path, status, durationMs: Date.now() - started, error });
    };
    const headers: Record<string, string> = spec.jsonContentType ? { 'content-type': 'application/json' } : {};
    propagation.inject(context.active(), headers);
    const timeoutMs = call.timeoutMs ?? this.config.timeoutMs;
    try {
      const response = await this.ky(spec.path.replace(/^\/+/, ''), {
        method: spec.method,
        searchParams: Object.entries(spec.query ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])),
        json: spec.json,
        body: spec.form,
        signal: call.signal,
        timeout: timeoutMs,
        // Only when needed: an explicit `headers: undefined` would drop the instance's headers.
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      });
      status = response.status;
      const text = await this.readBody(spec, response, timeoutMs);
      if (!response.ok) throw this.httpFailure(spec, response, text);
      event();
      return text;
    } catch (err) {
      // A cancelled activity must see its own abort, not a platform failure.
      if (call.signal?.aborted && !(err instanceof PlatformError)) throw err;
      const mapped = err instanceof PlatformError ? err : this.transportFailure(spec, err);
      event(mapped.message);
      throw mapped;
    }
  }

  /** A stall of `idleMs` between chunks times out the call. */
  private async readBody(spec: RequestSpec, response: Response, idleMs: number): Promise<string> {
    if (!response.body) return '';
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    try {
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const stalled = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(this.failure(spec, 'timeout', STALLED)), idleMs);
        });
        const { done, value } = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
        if (done) break;
        bytes += value.byteLength;
        if (bytes > MAX_RESPONSE_BYTES)
          throw this.malformed(spec, `the body is larger than ${MAX_RESPONSE_BYTES} bytes`);
        chunks.push(value);
      }
    } catch (err) {
      await reader.cancel().catch(() => undefined);
      throw err;
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private httpFailure(spec: RequestSpec, response: Response, text: string): PlatformError {
    let body: PlatformErrorBody = {};
    try {
      const parsed = PlatformErrorBody.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // Not JSON (a proxy's HTML page, say).
    }
    const platformMessage = body.message !== undefined ? redact(body.message, [this.config.apiKey]) : undefined;
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
    if (err instanceof TimeoutError) return this.failure(spec, 'timeout', 'no answer within the timeout');
    const code = causeCode(err);
    const detail = err instanceof Error ? err.message : String(err);
    const delivered = spec.method !== 'GET' && !(code && NETWORK_CODES_NOT_DELIVERED.has(code));
    return this.failure(spec, 'network', `network error${code ? ` ${code}` : ''} (${detail})`, delivered);
  }

  private failure(
    spec: RequestSpec,
    kind: 'timeout' | 'network' | 'malformed_response',
    detail: string,
    maybeDelivered = spec.method !== 'GET',
  ): PlatformError {
    return new PlatformError({
      kind,
      operation: spec.operation,
      maybeDelivered,
      message: redact(`${spec.operation} failed: ${detail}`, [this.config.apiKey]),
    });
  }

  private malformed(spec: RequestSpec, detail: string): PlatformError {
    return this.failure(spec, 'malformed_response', `malformed response: ${detail}`);
  }
}
