// Every class of failure maps to one PlatformError with the right facts, and the API key never shows
// in an error or a call event.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallEvent } from '../../src/platform-client/client';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, PlatformError } from '../../src/platform-client/errors';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

async function failure(p: Promise<unknown>): Promise<PlatformError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw new Error(`expected a PlatformError, got ${String(err)}`);
  return err;
}

describe('platform errors', () => {
  let emu: TestEmulator;
  const events: CallEvent[] = [];
  const errors: PlatformError[] = [];
  const record = (e: PlatformError) => {
    errors.push(e);
    return e;
  };
  const client = () => emu.client({}, { onCall: (e) => events.push(e) });
  const faults = (routes: Record<string, Record<string, number>>) => emu.admin('PUT', '/faults', { routes });

  beforeAll(async () => {
    emu = await startTestEmulator({ clockSpeed: 20 });
  });
  afterEach(() => emu.admin('DELETE', '/faults'));
  afterAll(() => emu.close());

  it('a wrong key is 401/403, final, in the platform body shape', async () => {
    const e = record(await failure(emu.client({ apiKey: 'sk-wrong-key-123456' }).listQuotas()));
    expect(e.kind).toBe('http');
    expect([401, 403]).toContain(e.status);
    expect(e.retryable).toBe(false);
    expect(e.reason).toEqual(expect.any(String));
    expect(e.traceId).toEqual(expect.any(String));
    expect(e.message).not.toContain('sk-wrong-key-123456');
  });

  it('a missing key gets a platform error body', async () => {
    const res = await fetch(`${emu.url}/openapi/v1/user/quota/list`);
    expect([401, 403]).toContain(res.status);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual(
      expect.objectContaining({
        code: res.status,
        reason: expect.any(String),
        message: expect.any(String),
        metadata: expect.objectContaining({ trace_id: expect.any(String) }),
      }),
    );
  });

  it('an unknown task is 404 TASK_NOT_FOUND, final', async () => {
    const e = record(await failure(client().getTaskResult('no-such-task')));
    expect(e).toMatchObject({ kind: 'http', status: 404, reason: 'TASK_NOT_FOUND', retryable: false });
  });

  it('an unknown instance is refused as the GPU API does (400 RESOURCE_NOT_FOUND), final', async () => {
    const e = record(await failure(client().renewInstance({ instanceId: 'inst-missing', months: 1 })));
    expect(e).toMatchObject({ kind: 'http', status: 400, reason: 'RESOURCE_NOT_FOUND', retryable: false });
  });

  it('429 is retryable and carries Retry-After', async () => {
    await faults({ taskResult: { rate429: 1, retryAfterSeconds: 3 } });
    const e = record(await failure(client().getTaskResult('any')));
    expect(e).toMatchObject({
      kind: 'http',
      status: 429,
      reason: 'RATE_LIMIT_EXCEEDED',
      retryable: true,
      retryAfterMs: 3000,
    });
  });

  it('a Retry-After beyond 15 minutes is cut to 15 minutes; a bad one is ignored', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('99999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Wed, 01 Jan 2300 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('9'.repeat(100), now)).toBeUndefined();
    expect(MAX_RETRY_AFTER_MS).toBe(15 * 60_000);
  });

  it('5xx is retryable, with the trace id', async () => {
    await faults({ taskResult: { errorRate5xx: 1, status5xx: 503 } });
    const e = record(await failure(client().getTaskResult('any')));
    expect(e).toMatchObject({ kind: 'http', status: 503, retryable: true });
    expect(e.traceId).toEqual(expect.any(String));
    expect(e.message).toMatch(/trace_id/);
  });

  it('a hung request times out, retryable; a submit that timed out may have been delivered', async () => {
    await faults({ taskResult: { hangRate: 1 }, submitTextToVideo: { hangRate: 1 } });
    const fast = emu.client({ timeoutMs: 300 }, { onCall: (ev) => events.push(ev) });
    const get = record(await failure(fast.getTaskResult('any')));
    expect(get).toMatchObject({ kind: 'timeout', retryable: true, maybeDelivered: false });
    const submit = record(await failure(fast.submitTextToVideo({ prompt: 'x' })));
    expect(submit).toMatchObject({ kind: 'timeout', retryable: true, maybeDelivered: true });
  });

  it('a paid call that cannot be looked up waits out a slow answer that a read would give up on', async () => {
    // 600 ms of latency: past the 300 ms timeout of reads, within the 3 s of paid calls.
    await faults({ '*': { latencyMs: 600 } });
    const slow = emu.client({ timeoutMs: 300, paidCallTimeoutMs: 3_000 });
    const task = await slow.submitTextToVideo({ prompt: 'slow but paid once' });
    expect(task.task_id).toEqual(expect.any(String));
    const answer = await slow.decisionEvaluation({
      kind: 'choice',
      state: ['a photo of a cat'],
      question: 'which animal?',
      options: ['cat', 'dog'],
    });
    expect(Object.keys(answer.probabilities).sort()).toEqual(['cat', 'dog']);
    expect(record(await failure(slow.getTaskResult(task.task_id)))).toMatchObject({ kind: 'timeout' });
  });

  it('a body that stalls after its headers times out, within the call timeout', async () => {
    // Headers and the first bytes at once, then nothing: ky's own timeout has already stopped.
    const stall = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":0,');
    });
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', r));
    try {
      const port = (stall.address() as AddressInfo).port;
      const slow = emu.client(
        { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 },
        { onCall: (ev) => events.push(ev) },
      );
      const started = Date.now();
      const get = record(await failure(slow.listQuotas()));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(get).toMatchObject({ kind: 'timeout', retryable: true, maybeDelivered: false });
      expect(get.message).toMatch(/body stalled/);
      const submit = record(await failure(slow.submitTextToVideo({ prompt: 'x' })));
      expect(submit).toMatchObject({ kind: 'timeout', retryable: true, maybeDelivered: true });
    } finally {
      stall.closeAllConnections();
      await new Promise<void>((r) => stall.close(() => r()));
    }
  });

  it('a malformed body is a retryable malformed_response', async () => {
    await faults({ listQuotas: { malformedRate: 1 } });
    const e = record(await failure(client().listQuotas()));
    expect(e).toMatchObject({ kind: 'malformed_response', retryable: true });
  });

  it('a connection reset is a retryable network error', async () => {
    await faults({ listQuotas: { resetRate: 1 } });
    const e = record(await failure(client().listQuotas()));
    expect(e).toMatchObject({ kind: 'network', retryable: true });
  });

  it('a refused connection is a network error that was surely not delivered', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = record(
      await failure(emu.client({ baseUrl: `http://127.0.0.1:${port}` }).submitTextToVideo({ prompt: 'x' })),
    );
    expect(e).toMatchObject({ kind: 'network', retryable: true, maybeDelivered: false });
    expect(e.message).toMatch(/ECONNREFUSED/);
  });

  it('an aborted call rethrows the abort, not a platform error', async () => {
    await faults({ taskResult: { hangRate: 1 } });
    const ctl = new AbortController();
    const p = client().getTaskResult('any', { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('redacts the key when a server echoes it back', async () => {
    const echo = http.createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: 500,
          reason: 'INTERNAL',
          message: `bad header ${req.headers.authorization}`,
          metadata: { trace_id: 't' },
        }),
      );
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const port = (echo.address() as AddressInfo).port;
      const e = record(
        await failure(
          emu.client({ baseUrl: `http://127.0.0.1:${port}` }, { onCall: (ev) => events.push(ev) }).listQuotas(),
        ),
      );
      expect(e.platformMessage).toBe('bad header Bearer [REDACTED]');
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });

  it('no error message, serialised error or call event ever contains the API key', () => {
    expect(errors.length).toBeGreaterThanOrEqual(10);
    expect(events.length).toBeGreaterThanOrEqual(5);
    const everything = [
      ...errors.map((e) => `${e.message}\n${e.stack ?? ''}\n${JSON.stringify(e)}`),
      ...events.map((e) => JSON.stringify(e)),
    ].join('\n');
    expect(everything).not.toContain(emu.key);
  });
});
