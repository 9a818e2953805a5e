// The admin API under /_emulator: reset, fixtures, faults, clock, budgets, quotas, task, instance and
// endpoint settings, counters and internal views of tasks, batches and endpoints. Inputs are checked with
// zod like platform routes, and refusals use the same error body. No auth unless EMULATOR_ADMIN_TOKEN is set.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { BatchSettingsUpdate } from './batches';
import { maskKey } from './config';
import { FaultConfigSchema } from './faults';
import {
  DecisionSettingsSchema,
  EndpointSettingsUpdate,
  endpointSettingsProblems,
  InstanceSettingsSchema,
  mergeEndpointSettings,
} from './fixtures';
import { parseOr400, sendInvalid, sendPlatformError } from './http';
import { ADMIN_PREFIX } from './routes';
import { registerScenarioAdminRoutes } from './scenario-routes';
import type { EmulatorState } from './state';
import { TaskSettingsUpdateSchema, mergeTaskSettings } from './task-settings';

const SpeedBody = z.strictObject({ speed: z.number().gt(0).max(1_000_000) });
const AdvanceBody = z.strictObject({
  ms: z
    .number()
    .min(0)
    .max(10 * 365 * 86_400_000),
});
const BudgetBody = z.strictObject({
  /** 1/10000 USD; null removes the limit. */
  remaining: z.number().int().nullable(),
});
const QuotaBody = z.strictObject({
  quotaObject: z.string().min(1),
  quotaType: z.string().min(1),
  currentQuota: z.number().int().min(0),
});

const json = (reply: FastifyReply, value: unknown) => reply.send(value);

export function registerAdminRoutes(app: FastifyInstance, state: EmulatorState): void {
  void app.register(
    (scope, _opts, done) => {
      const token = state.options.adminToken;
      if (token) {
        scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: () => void) => {
          const given = request.headers.authorization;
          if (given !== `Bearer ${token}`) {
            void sendPlatformError(
              reply,
              401,
              'UNAUTHENTICATED',
              'the admin API wants "Authorization: Bearer <EMULATOR_ADMIN_TOKEN>"',
            );
            return;
          }
          next();
        });
      }
      routes(scope, state);
      registerScenarioAdminRoutes(scope, state);
      done();
    },
    { prefix: ADMIN_PREFIX },
  );
}

function routes(app: FastifyInstance, state: EmulatorState): void {
  app.post('/reset', (_request, reply) => {
    state.reset();
    return json(reply, { ok: true });
  });

  // ── Fixtures ─────────────────────────────────────────────────────────────
  app.get('/fixtures', (_request, reply) =>
    // Keys are shown masked: the admin API is a view, not a way to read credentials back.
    json(reply, {
      ...state.fixtures,
      apiKeys: state.fixtures.apiKeys.map(({ key, ...rest }) => ({ ...rest, keyMask: maskKey(key) })),
    }),
  );
  app.post('/fixtures', (request, reply) => {
    const issues = state.setFixtures(request.body ?? {});
    if (issues.length > 0) return sendInvalid(reply, issues);
    state.reset();
    return json(reply, { ok: true });
  });
  app.delete('/fixtures', (_request, reply) => {
    state.fixtures = state.builtIn;
    state.reset();
    return json(reply, { ok: true });
  });

  // ── Faults ───────────────────────────────────────────────────────────────
  app.get('/faults', (_request, reply) => json(reply, state.faults.view()));
  app.put('/faults', (request, reply) => {
    const config = parseOr400(reply, FaultConfigSchema, request.body);
    if (!config) return reply;
    const unknown = state.faults.unknownKeys(config);
    if (unknown.length > 0) return sendInvalid(reply, unknown);
    state.faults.set(config);
    return json(reply, state.faults.view());
  });
  app.delete('/faults', (_request, reply) => {
    state.faults.clear();
    state.faults.releaseHung();
    return json(reply, state.faults.view());
  });

  // ── Clock ────────────────────────────────────────────────────────────────
  const clockView = () => ({
    now: state.clock.now(),
    iso: new Date(state.clock.now()).toISOString(),
    speed: state.clock.speed,
  });
  app.get('/clock', (_request, reply) => json(reply, clockView()));
  app.put('/clock', (request, reply) => {
    const body = parseOr400(reply, SpeedBody, request.body);
    if (!body) return reply;
    state.clock.setSpeed(body.speed);
    return json(reply, clockView());
  });
  app.post('/clock/advance', (request, reply) => {
    const body = parseOr400(reply, AdvanceBody, request.body);
    if (!body) return reply;
    state.clock.advance(body.ms);
    // Tasks and batches that ended in the jump are billed now, not at the next sweep.
    state.tasks.settleDue();
    state.batches.settleDue();
    return json(reply, clockView());
  });

  // ── Money and quotas ─────────────────────────────────────────────────────
  app.get('/members', (_request, reply) => json(reply, { members: state.accounts.members() }));
  app.put<{ Params: { id: string } }>('/members/:id/budget', (request, reply) => {
    const body = parseOr400(reply, BudgetBody, request.body);
    if (!body) return reply;
    if (!state.accounts.setRemaining(request.params.id, body.remaining)) {
      return sendPlatformError(reply, 404, 'MEMBER_NOT_FOUND', `member ${request.params.id} not found`);
    }
    return json(reply, state.accounts.member(request.params.id));
  });
  app.get('/charges', (_request, reply) => json(reply, { charges: state.accounts.charges().filter((c) => c.debited) }));
  app.get('/quotas', (_request, reply) =>
    json(reply, { data: state.limiter.list(), rateLimits: state.fixtures.rateLimits }),
  );
  app.put('/quotas', (request, reply) => {
    const body = parseOr400(reply, QuotaBody, request.body);
    if (!body) return reply;
    const quota = state.limiter.find(body.quotaObject, body.quotaType);
    if (!quota) {
      return sendPlatformError(reply, 404, 'QUOTA_NOT_FOUND', `no ${body.quotaType} quota for ${body.quotaObject}`);
    }
    quota.currentQuota = body.currentQuota;
    return json(reply, quota);
  });

  // ── Tasks ────────────────────────────────────────────────────────────────
  app.get('/tasks/settings', (_request, reply) => json(reply, state.tasks.settings));
  app.put('/tasks/settings', (request, reply) => {
    const body = parseOr400(reply, TaskSettingsUpdateSchema, request.body);
    if (!body) return reply;
    // Applies to tasks submitted from now on: a running task keeps the plan it was given.
    state.tasks.settings = mergeTaskSettings(state.tasks.settings, body);
    return json(reply, state.tasks.settings);
  });
  app.get<{ Params: { id: string } }>('/tasks/:id', (request, reply) => {
    const task = state.tasks.get(request.params.id);
    if (!task) return sendPlatformError(reply, 404, 'TASK_NOT_FOUND', `task ${request.params.id} not found`);
    return json(reply, state.tasks.view(task, state.counters.pollsOf(task.id)));
  });

  state.callbacks.registerAdmin(app);

  // ── Instances, endpoints, decision, batches ──────────────────────────────
  app.get('/instances', (_request, reply) =>
    json(reply, { instances: state.instances.list(), settings: state.instances.settings }),
  );
  app.put('/instances/settings', (request, reply) => {
    const body = parseOr400(reply, InstanceSettingsSchema.partial(), request.body);
    if (!body) return reply;
    state.instances.settings = { ...state.instances.settings, ...body };
    return json(reply, state.instances.settings);
  });
  // Every endpoint since the last reset, gone ones too: what each billed, and its workers billing now.
  app.get('/endpoints', (_request, reply) =>
    json(reply, { endpoints: state.endpoints.adminView(), settings: state.endpoints.settings }),
  );
  app.get('/endpoints/settings', (_request, reply) => json(reply, state.endpoints.settings));
  app.put('/endpoints/settings', (request, reply) => {
    const body = parseOr400(reply, EndpointSettingsUpdate, request.body);
    if (!body) return reply;
    // Phase lengths apply to workers started from now on; the quota and limits to the next create or update.
    const next = mergeEndpointSettings(state.endpoints.settings, body);
    const problems = endpointSettingsProblems(next);
    if (problems.length > 0) return sendInvalid(reply, problems);
    state.endpoints.settings = next;
    return json(reply, next);
  });
  app.get('/decision/settings', (_request, reply) => json(reply, state.decision));
  app.put('/decision/settings', (request, reply) => {
    const body = parseOr400(reply, DecisionSettingsSchema.partial(), request.body);
    if (!body) return reply;
    state.decision = { ...state.decision, ...body };
    return json(reply, state.decision);
  });
  app.get('/batches/settings', (_request, reply) => json(reply, state.batches.settings));
  app.put('/batches/settings', (request, reply) => {
    const body = parseOr400(reply, BatchSettingsUpdate, request.body);
    if (!body) return reply;
    try {
      return json(reply, state.batches.updateSettings(body));
    } catch (err) {
      if (err instanceof RangeError) return sendInvalid(reply, [{ field: '', rule: err.message }]);
      throw err;
    }
  });
  app.get<{ Params: { id: string } }>('/batches/:id', (request, reply) => {
    const view = state.batches.view(request.params.id);
    if (!view) return sendPlatformError(reply, 404, 'BATCH_NOT_FOUND', `batch ${request.params.id} not found`);
    return json(reply, view);
  });

  // ── Counters ─────────────────────────────────────────────────────────────
  app.get('/counters', (_request, reply) => json(reply, state.counters.view()));
  app.post('/counters/reset', (_request, reply) => {
    state.counters.reset();
    return json(reply, state.counters.view());
  });
}
