// The admin API's scenario calls: load one (it starts at once, t = 0 now), see where it is, stop it.
import type { FastifyInstance } from 'fastify';
import { sendInvalid } from './http';
import type { EmulatorState } from './state';

export function registerScenarioAdminRoutes(app: FastifyInstance, state: EmulatorState): void {
  app.get('/scenario', (_request, reply) => reply.send(state.scenario.view()));
  app.post('/scenario', (request, reply) => {
    const checked = state.checkScenario(request.body ?? {});
    if (!checked.ok) return sendInvalid(reply, checked.issues);
    state.scenario.load(checked.value);
    return reply.send(state.scenario.view());
  });
  app.delete('/scenario', (_request, reply) => {
    state.scenario.stop();
    return reply.send(state.scenario.view());
  });
}
