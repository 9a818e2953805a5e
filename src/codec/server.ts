// The codec server the Temporal Web UI and CLI decrypt (`POST /decode`) and encrypt (`POST /encode`) payloads
// with (docs/encryption.md). Who may ask: a bearer JWT verified against the issuer's JWKS (what the UI forwards
// under OIDC with `passAccessToken`), or, bound to a loopback address only, anyone on this machine.
import type { AddressInfo } from 'node:net';
import cors from '@fastify/cors';
import type { Payload } from '@temporalio/common';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { parseConfig } from '../platform-client/config';
import { PayloadEncryption, type Keyring } from '@platform-ops/client';

interface CodecServerOptions {
  keyring: Keyring;
  host: string;
  port: number;
  /** None: only callers that send no Origin (the CLI). */
  corsOrigins: string[];
  /** Empty: any. */
  namespaces: string[];
  auth: { mode: 'local' } | { mode: 'jwt'; issuer: string; jwksUrl: string; audience?: string };
  maxBodyBytes: number;
  maxPayloads: number;
  requestTimeoutMs: number;
}

export const CODEC_LIMITS = { maxBodyBytes: 8 * 1024 * 1024, maxPayloads: 1000, requestTimeoutMs: 10_000 };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const Base64 = z.string().max(CODEC_LIMITS.maxBodyBytes).regex(BASE64, 'must be base64');
const JsonPayload = z.object({
  metadata: z.record(z.string().max(256), Base64).optional(),
  data: Base64.optional(),
});
const Body = (maxPayloads: number) =>
  z.object({ payloads: z.array(JsonPayload).max(maxPayloads, `at most ${maxPayloads} payloads a request`) });

const toPayload = (p: z.infer<typeof JsonPayload>): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export async function startCodecServer(opts: CodecServerOptions) {
  if (opts.auth.mode === 'local' && !LOOPBACK.has(opts.host)) {
    throw new Error(`CODEC_AUTH=local: only on a loopback address (CODEC_HOST is ${opts.host}); use CODEC_AUTH=jwt.`);
  }
  const codec = new PayloadEncryption(opts.keyring);
  const verify = verifier(opts.auth);
  const body = Body(opts.maxPayloads);
  const app = Fastify({
    logger: false,
    bodyLimit: opts.maxBodyBytes,
    requestTimeout: opts.requestTimeoutMs,
    connectionTimeout: opts.requestTimeoutMs,
    forceCloseConnections: true,
  });
  await app.register(cors, {
    origin: opts.corsOrigins,
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Authorization', 'X-Namespace'],
    credentials: true,
    maxAge: 600,
  });
  const refuse = (reply: FastifyReply, status: number, message: string) => reply.code(status).send({ message });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    return refuse(reply, status, status < 500 ? error.message : 'The codec server failed to answer.');
  });
  const handle = (op: 'decode' | 'encode') => async (req: FastifyRequest, reply: FastifyReply) => {
    const who = await verify(req.headers.authorization);
    if (!who.ok) return refuse(reply, 401, who.why);
    const namespace = req.headers['x-namespace'];
    if (opts.namespaces.length > 0 && (typeof namespace !== 'string' || !opts.namespaces.includes(namespace))) {
      return refuse(reply, 403, `X-Namespace: must be one of ${opts.namespaces.join(', ')}.`);
    }
    const parsed = body.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(reply, 400, `${['body', ...issue.path].join('.')}: ${issue.message}.`);
    }
    try {
      return { payloads: (await codec[op](parsed.data.payloads.map(toPayload))).map(toJson) };
    } catch (err) {
      // A payload under a key not held, or altered: the caller's payload, not the server's fault.
      return refuse(reply, 422, err instanceof Error ? err.message : String(err));
    }
  };
  app.post('/decode', handle('decode'));
  app.post('/encode', handle('encode'));
  await app.listen({ host: opts.host, port: opts.port });
  const { port } = app.server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}

export type CodecServer = Awaited<ReturnType<typeof startCodecServer>>;

type Verdict = { ok: true } | { ok: false; why: string };

function verifier(auth: CodecServerOptions['auth']): (authorization: string | undefined) => Promise<Verdict> {
  if (auth.mode === 'local') return () => Promise.resolve({ ok: true });
  // jose fetches the issuer's keys once, caches them, and fetches again for a key id it has not seen.
  const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(auth.jwksUrl), { timeoutDuration: 5_000 });
  return async (authorization) => {
    const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { ok: false, why: 'Authorization: a bearer token is required.' };
    try {
      await jwtVerify(token, keys, { issuer: auth.issuer, audience: auth.audience, clockTolerance: 30 });
      return { ok: true };
    } catch (err) {
      // jose's codes (ERR_JWT_EXPIRED, …) say why without quoting the token.
      const code = (err as { code?: string }).code ?? 'invalid';
      return { ok: false, why: `Authorization: the token was refused (${code}).` };
    }
  };
}

const List = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const IGNORED_TOKEN_SETTING =
  'is set, but CODEC_AUTH is local (a loopback CODEC_HOST): set CODEC_AUTH=jwt for tokens to be checked';
const authModeOf = (s: { CODEC_AUTH?: 'local' | 'jwt'; CODEC_HOST: string }): 'local' | 'jwt' =>
  s.CODEC_AUTH ?? (LOOPBACK.has(s.CODEC_HOST) ? 'local' : 'jwt');

const CodecEnv = z
  .object({
    CODEC_HOST: z.string().trim().min(1).max(255).default('127.0.0.1'),
    CODEC_PORT: z.coerce.number().int().min(0).max(65_535).default(8234),
    CODEC_AUTH: z.enum(['local', 'jwt']).optional(),
    CODEC_JWT_ISSUER: z.string().trim().min(1).max(2048).optional(),
    CODEC_JWKS_URL: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    CODEC_JWT_AUDIENCE: z.string().trim().min(1).max(2048).optional(),
    CODEC_CORS_ORIGINS: List.pipe(z.array(z.url({ protocol: /^https?$/ })).max(50)),
    CODEC_NAMESPACES: List.pipe(z.array(z.string().max(1000)).max(100)),
  })
  .superRefine((s, ctx) => {
    const issue = (name: string, message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
    const mode = authModeOf(s);
    if (mode === 'jwt' && !s.CODEC_JWT_ISSUER) issue('CODEC_JWT_ISSUER', 'is required with CODEC_AUTH=jwt');
    if (mode === 'jwt' && !s.CODEC_JWKS_URL) issue('CODEC_JWKS_URL', 'is required with CODEC_AUTH=jwt');
    if (mode === 'local') {
      if (!LOOPBACK.has(s.CODEC_HOST)) issue('CODEC_AUTH', 'local is only allowed on a loopback CODEC_HOST');
      // A token setting that would be ignored is a mistake to name: its author expects tokens checked.
      for (const name of ['CODEC_JWT_ISSUER', 'CODEC_JWKS_URL', 'CODEC_JWT_AUDIENCE'] as const) {
        if (s[name] !== undefined) issue(name, IGNORED_TOKEN_SETTING);
      }
    }
  });

export function loadCodecServerSettings(env: NodeJS.ProcessEnv = process.env): Omit<CodecServerOptions, 'keyring'> {
  const s = parseConfig(CodecEnv, env, 'Codec server configuration');
  const mode = authModeOf(s);
  return {
    host: s.CODEC_HOST,
    port: s.CODEC_PORT,
    corsOrigins: s.CODEC_CORS_ORIGINS,
    namespaces: s.CODEC_NAMESPACES,
    auth:
      mode === 'local'
        ? { mode }
        : { mode, issuer: s.CODEC_JWT_ISSUER!, jwksUrl: s.CODEC_JWKS_URL!, audience: s.CODEC_JWT_AUDIENCE },
    ...CODEC_LIMITS,
  };
}
