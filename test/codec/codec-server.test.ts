// The codec server as the Web UI and the CLI call it, over HTTP: a payload from a real history decodes with valid
// credentials; 401 without them, with a token of another issuer, or an expired one; CORS answers the UI's origin
// only; oversized and malformed bodies get a 4xx and the server keeps serving.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter } from '@temporalio/common';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from 'jose';
import { loadKeyring, WorkflowType } from '@platform-ops/client';
import { CODEC_LIMITS, loadCodecServerSettings, startCodecServer, type CodecServer } from '../../src/codec/server';
import { encryptingConverter, uniqueId, withWorker } from '../helpers/temporal';

const UI = 'http://127.0.0.1:8233';
const ISSUER = 'https://issuer.test/';
const b64 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');

/** A payload of a real run's history, as the Web UI sends it: the start's input, encrypted. */
async function payloadFromHistory() {
  return withWorker(
    'codec-server',
    async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: uniqueId('codec-server'),
        args: [{ state: 'the state', questions: [{ kind: 'yes_no', question: 'Is it a greeting?' }] }],
      });
      await handle.result();
      const { events } = await handle.fetchHistory();
      const [p] = events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
      return {
        metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, b64(v)])),
        data: b64(p.data),
      };
    },
    { dataConverter: encryptingConverter() },
  );
}

describe('codec server', () => {
  let jwks: Server;
  let signingKey: JoseKey;
  let otherKey: JoseKey;
  let local: CodecServer;
  let jwt: CodecServer;
  let encrypted: Awaited<ReturnType<typeof payloadFromHistory>>;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    signingKey = pair.privateKey;
    ({ privateKey: otherKey } = await generateKeyPair('RS256'));
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
    jwks = createServer((_req, res) => res.end(JSON.stringify({ keys: [publicJwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    const keyring = loadKeyring({ PAYLOAD_KEYS: process.env.PAYLOAD_KEYS })!;
    local = await startCodecServer({
      ...loadCodecServerSettings({ CODEC_PORT: '0', CODEC_CORS_ORIGINS: UI }),
      keyring,
    });
    jwt = await startCodecServer({
      ...loadCodecServerSettings({
        CODEC_PORT: '0',
        CODEC_AUTH: 'jwt',
        CODEC_JWT_ISSUER: ISSUER,
        CODEC_JWKS_URL: jwksUrl,
        CODEC_NAMESPACES: 'default',
      }),
      keyring,
    });
    encrypted = await payloadFromHistory();
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await jwt?.close();
    jwks?.close();
  });

  const post = (server: CodecServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const token = (key: JoseKey, claims: { issuer?: string; expiresIn?: string | number } = {}) =>
    new SignJWT({ sub: 'operator' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(claims.issuer ?? ISSUER)
      .setIssuedAt()
      .setExpirationTime(claims.expiresIn ?? '5m')
      .sign(key);

  it('decodes a payload from a real history, and encodes one back', async () => {
    const res = await post(local, '/decode', { payloads: [encrypted] });
    expect(res.status).toBe(200);
    const { payloads } = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    const decoded = {
      metadata: Object.fromEntries(Object.entries(payloads[0].metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
      data: Buffer.from(payloads[0].data, 'base64'),
    };
    expect(defaultPayloadConverter.fromPayload(decoded)).toMatchObject({ state: 'the state' });
    const again = await post(local, '/encode', { payloads });
    const [reEncoded] = ((await again.json()) as { payloads: Array<{ metadata: Record<string, string> }> }).payloads;
    expect(Buffer.from(reEncoded.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
  });

  it('asks a token of the configured issuer when not local: none, another issuer’s, an expired one get 401', async () => {
    expect((await post(jwt, '/decode', { payloads: [encrypted] })).status).toBe(401);
    const bearer = async (t: Promise<string>) => ({ authorization: `Bearer ${await t}` });
    expect((await post(jwt, '/decode', { payloads: [encrypted] }, await bearer(token(signingKey)))).status).toBe(200);
    const refused = [
      await bearer(token(otherKey)),
      await bearer(token(signingKey, { issuer: 'https://elsewhere.test/' })),
      await bearer(token(signingKey, { expiresIn: Math.floor(Date.now() / 1000) - 120 })),
    ];
    for (const headers of refused) {
      const res = await post(jwt, '/decode', { payloads: [encrypted] }, headers);
      expect(res.status).toBe(401);
      expect(JSON.stringify(await res.json())).not.toContain((headers.authorization ?? '').slice(7, 40));
    }
    const elsewhere = await post(
      jwt,
      '/decode',
      { payloads: [encrypted] },
      {
        ...(await bearer(token(signingKey))),
        'x-namespace': 'other',
      },
    );
    expect(elsewhere.status).toBe(403);
  });

  it('answers the UI’s CORS preflight, and no other origin’s', async () => {
    const preflight = (origin: string) =>
      fetch(`${local.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const ui = await preflight(UI);
    expect(ui.status).toBe(204);
    expect(ui.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ui.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
    expect((await preflight('http://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses oversized and malformed bodies with a 4xx, and keeps serving', async () => {
    const big = 'A'.repeat(CODEC_LIMITS.maxBodyBytes + 10);
    expect((await post(local, '/decode', { payloads: [{ data: big }] })).status).toBe(413);
    expect((await post(local, '/decode', '{ not json')).status).toBe(400);
    const notBase64 = await post(local, '/decode', { payloads: [{ data: 'not base64!' }] });
    expect(notBase64.status).toBe(400);
    expect(await notBase64.json()).toEqual({ message: 'body.payloads.0.data: must be base64.' });
    const tooMany = { payloads: Array.from({ length: CODEC_LIMITS.maxPayloads + 1 }, () => ({ data: '' })) };
    expect((await post(local, '/decode', tooMany)).status).toBe(400);
    const otherKey = {
      ...encrypted,
      metadata: { ...encrypted.metadata, 'encryption-key-id': b64(Buffer.from('gone')) },
    };
    const unknown = await post(local, '/decode', { payloads: [otherKey] });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/names key "gone"/);
    expect((await post(local, '/decode', { payloads: [encrypted] })).status).toBe(200);
  });

  it('is refused at start on a non-loopback address without tokens, naming the setting', () => {
    expect(() => loadCodecServerSettings({ CODEC_HOST: '0.0.0.0', CODEC_AUTH: 'local' })).toThrow(
      /CODEC_AUTH: local is only allowed on a loopback CODEC_HOST/,
    );
    expect(() => loadCodecServerSettings({ CODEC_HOST: '0.0.0.0' })).toThrow(/CODEC_JWT_ISSUER: is required/);
    // Token settings on a server that checks none: named, not ignored.
    expect(() => loadCodecServerSettings({ CODEC_JWT_ISSUER: ISSUER })).toThrow(
      /CODEC_JWT_ISSUER: is set, but CODEC_AUTH is local \(a loopback CODEC_HOST\): set CODEC_AUTH=jwt/,
    );
  });
});
