// Builds and starts the platform emulator: one fastify server with the platform routes (at
// DEFAULT_PATHS), the batch routes, output files, the admin API and the health check.
//
// Per request, in order: the route's info (set once per route by the onRoute hook) → the scenario's
// due events → serverless charges accrued by now → request counter → fault injection → key auth → body
// parsing → added latency (faults) → the handler (validation, quotas, work).
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerAccountRoutes } from './account-routes';
import { registerAdminRoutes } from './admin';
import { EmulatorAdmin } from './admin-client';
import { registerBatchRoutes } from './batches';
import { registerCatalogRoutes } from './catalog';
import type { EmulatorClock } from './clock';
import { DEFAULT_OPTIONS, type EmulatorOptions } from './config';
import { registerDecisionRoute } from './decision';
import { sendInvalid, sendPlatformError } from './http';
import { registerInstanceRoutes } from './instances';
import { registerServerlessRoutes } from './serverless-routes';
import { HEALTH_PATH, UNKNOWN_ROUTE } from './routes';
import { Recorder } from './record';
import { EmulatorState } from './state';
import { registerTaskRoutes } from './tasks/routes';
import type { Caller } from './types';
import { countPaidCalls } from './paid-calls';

export type { EmulatorOptions } from './config';

const MAX_PATH_PARAM_LENGTH = 1024;

export interface RunningEmulator {
  /** http://host:port, no trailing slash. */
  url: string;
  port: number;
  /** The first accepted API key (DEV_API_KEY unless `apiKeys` says otherwise). */
  apiKey: string;
  /** The admin API over HTTP: fixtures, faults, scenarios, clock, counters. */
  admin: EmulatorAdmin;
  clock: EmulatorClock;
  state: EmulatorState;
  app: FastifyInstance;
  /** Same as POST /_emulator/reset. */
  reset(): void;
  close(): Promise<void>;
}

/** Builds the fastify app over a state, without listening (tests may inject requests into it). */
function buildEmulatorApp(state: EmulatorState, recorder?: Recorder): FastifyInstance {
  const app = Fastify({
    logger: state.options.logger
      ? // Never the Authorization header: keys must not reach a log line.
        { level: 'info', redact: ['req.headers.authorization'] }
      : false,
    // close() must not wait for keep-alive clients (benchmarks) or hung requests.
    forceCloseConnections: true,
    // Long polls are the norm; a short keep-alive would make clients reconnect all the time.
    keepAliveTimeout: 65_000,
    // Ids in paths run to 255 characters (spec), three times that percent-encoded; fastify's default
    // of 100 refused valid instance ids with a 414 of its own.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // The router's own refusals (a longer id, a broken %-escape) in the platform's error body too.
    frameworkErrors: (error, _request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        void sendPlatformError(
          reply,
          414,
          'URI_TOO_LONG',
          `a path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters`,
        );
      } else {
        void sendInvalid(reply, [{ field: '', rule: `the request path is not valid (${error.message})` }]);
      }
    },
  });
  app.decorateRequest('caller', null as unknown as Caller);
  // Before any route, so every route (the batch helper's included) gets its info.
  app.addHook('onRoute', state.routes.onRoute);
  // Before every other hook: refused and faulted requests are recorded too.
  recorder?.register(app);

  // First: a scenario event due by now (an outage starting) applies to this very request.
  app.addHook('onRequest', state.scenario.onRequest);
  // Serverless workers bill with the clock, not per call: what they accrued is posted before any read of a budget or
  // a bill, admin views included.
  app.addHook('onRequest', (_request, _reply, done) => {
    state.endpoints.settleAll();
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.config.emulatorRoute ?? UNKNOWN_ROUTE;
    // Admin calls and health probes are not traffic: counting them would blur the figures tests read.
    if (route.kind !== 'admin' && route.kind !== 'health') state.counters.request(route.key);
    done();
  });
  app.addHook('onRequest', state.faults.onRequest);
  app.addHook('onRequest', state.keys.onRequest);
  app.addHook('preValidation', state.faults.preValidation);
  // Before the faults' onSend: a paid call counts by the handler's answer, not by what a fault makes of it.
  app.addHook('onSend', countPaidCalls(state.counters));
  app.addHook('onSend', state.faults.onSend);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) {
      return sendPlatformError(reply, 413, 'REQUEST_TOO_LARGE', `request body is too large (${error.message})`);
    }
    if (status === 415) return sendPlatformError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', error.message);
    if (status >= 400 && status < 500) {
      // Body parser refusals: empty or broken JSON.
      return sendInvalid(reply, [{ field: '', rule: `request body must be valid JSON (${error.message})` }]);
    }
    request.log.error({ err: error }, 'emulator route failed');
    return sendPlatformError(reply, 500, 'INTERNAL_ERROR', 'the emulator failed to handle this request');
  });
  app.setNotFoundHandler((request, reply) =>
    sendPlatformError(reply, 404, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
  );

  app.get(HEALTH_PATH, (_request, reply) => reply.send({ ok: true }));
  registerCatalogRoutes(app, { paths: state.paths });
  registerInstanceRoutes(app, { instances: state.instances, paths: state.paths });
  registerServerlessRoutes(app, { endpoints: state.endpoints, paths: state.paths });
  registerTaskRoutes(app, {
    tasks: state.tasks,
    accounts: state.accounts,
    limiter: state.limiter,
    counters: state.counters,
    paths: state.paths,
    callbacks: state.callbacks,
  });
  registerDecisionRoute(app, {
    accounts: state.accounts,
    limiter: state.limiter,
    clock: state.clock,
    settings: () => state.decision,
    paths: state.paths,
  });
  registerAccountRoutes(app, { accounts: state.accounts, limiter: state.limiter, paths: state.paths });
  registerBatchRoutes(app, { env: state.batchEnv, store: state.batches, paths: state.paths });
  registerAdminRoutes(app, state);
  return app;
}

/** URL host for a listening address: wildcard binds are reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '::0') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts an emulator; `port: 0` picks a free port. Options default to DEFAULT_OPTIONS, not the environment. */
export async function startEmulator(opts: Partial<EmulatorOptions> = {}): Promise<RunningEmulator> {
  const options: EmulatorOptions = { ...DEFAULT_OPTIONS, ...opts };
  const state = new EmulatorState(options);
  state.applyStartFaults();
  const recorder = options.recordFile ? new Recorder(options.recordFile, state.clock) : undefined;
  const app = buildEmulatorApp(state, recorder);
  await app.listen({ port: options.port, host: options.host });
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://${urlHost(options.host)}:${port}`;
  state.publicUrl = options.publicUrl ?? url;
  state.tasks.start();
  // Once listening: the scenario's t = 0 is the moment the emulator can be reached.
  state.applyStartScenario();
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    apiKey: options.apiKeys[0],
    admin: new EmulatorAdmin(url, options.adminToken),
    clock: state.clock,
    state,
    app,
    reset: () => state.reset(),
    close: () => {
      closed ??= (async () => {
        state.tasks.stop();
        state.callbacks.reset();
        state.faults.releaseHung();
        await app.close();
        await recorder?.close();
      })();
      return closed;
    },
  };
}
