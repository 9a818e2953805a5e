// Records every request the emulator receives and its answer as one JSON line (`--record file`,
// EMULATOR_RECORD), so a user can diff what their code sent against the spec's rules. Secrets never
// reach the file: credential headers are replaced by "[REDACTED]" (the emulator never echoes a key,
// so answers carry none). Bodies are cut at 64 KB; uploads (multipart) and files are noted by size.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorClock } from './clock';

const REDACTED = '[REDACTED]';
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);
const MAX_BODY_CHARS = 64 * 1024;

/** One line of the recording. */
export interface RecordedExchange {
  seq: number;
  /** Real time the request arrived (ISO). */
  at: string;
  /** Emulated time it arrived (ISO): what scenarios and task phases are measured on. */
  emulatedAt: string;
  method: string;
  url: string;
  /** The route key of counters and faults (`submitTextToVideo`, `admin` …). */
  route: string;
  request: { headers: Record<string, unknown>; body?: unknown };
  /** `status` null: no answer was sent (a hung or reset connection, a client that left). */
  response: { status: number | null; complete: boolean; contentType?: string; body?: unknown };
  /** Real ms from arrival to the connection's end of this exchange. */
  ms: number;
}

function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, SECRET_HEADERS.has(k.toLowerCase()) ? REDACTED : v]),
  );
}

/** A body as recorded: JSON as JSON, long text cut, binary noted by size. */
function recordedBody(payload: unknown, contentType: string | undefined): unknown {
  if (payload === undefined || payload === null) return undefined;
  if (Buffer.isBuffer(payload)) return { bytes: payload.length };
  if (typeof payload !== 'string') {
    // A parsed request body, or a stream (an answer cut off half-way by a fault).
    if (typeof (payload as { pipe?: unknown }).pipe === 'function') return { stream: true };
    const text = JSON.stringify(payload);
    return text.length > MAX_BODY_CHARS ? { truncated: true, text: text.slice(0, MAX_BODY_CHARS) } : payload;
  }
  if (payload.length > MAX_BODY_CHARS) return { truncated: true, text: payload.slice(0, MAX_BODY_CHARS) };
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(payload) as unknown;
    } catch {
      return { text: payload }; // a malformed answer (fault): kept as sent
    }
  }
  return { text: payload };
}

export class Recorder {
  private readonly out: WriteStream;
  private seq = 0;
  private failed = false;
  private readonly sent = new WeakMap<FastifyRequest, unknown>();

  constructor(
    readonly path: string,
    private readonly clock: EmulatorClock,
  ) {
    this.out = createWriteStream(path, { flags: 'a' });
    this.out.on('error', (err) => {
      // A full disk must not take the emulator down: say so once, and stop recording.
      if (!this.failed) console.error(`emulator: recording to ${path} stopped (${err.message})`);
      this.failed = true;
    });
  }

  /** Registers the hooks; call before any other onRequest hook so refusals are recorded too. */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      const arrived = { real: Date.now(), emulated: this.clock.now(), seq: ++this.seq };
      // 'close' comes for every exchange: answered, hung until freed, reset, or left by the client.
      reply.raw.once('close', () => this.write(request, reply, arrived));
      done();
    });
    app.addHook('onSend', (request, _reply, payload, done) => {
      this.sent.set(request, payload);
      done(null, payload);
    });
  }

  private write(
    request: FastifyRequest,
    reply: FastifyReply,
    arrived: { real: number; emulated: number; seq: number },
  ): void {
    if (this.failed) return;
    const contentType = reply.getHeader('content-type') as string | undefined;
    const multipart = String(request.headers['content-type'] ?? '').startsWith('multipart/');
    const line: RecordedExchange = {
      seq: arrived.seq,
      at: new Date(arrived.real).toISOString(),
      emulatedAt: new Date(arrived.emulated).toISOString(),
      method: request.method,
      url: request.url,
      route: request.routeOptions.config.emulatorRoute?.key ?? 'notFound',
      request: {
        headers: redactHeaders(request.headers),
        body: multipart
          ? { multipart: true, bytes: Number(request.headers['content-length'] ?? 0) }
          : recordedBody(request.body, String(request.headers['content-type'] ?? '')),
      },
      response: {
        status: reply.raw.headersSent ? reply.raw.statusCode : null,
        complete: reply.raw.writableFinished,
        contentType,
        body: recordedBody(this.sent.get(request), contentType),
      },
      ms: Date.now() - arrived.real,
    };
    this.out.write(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}
