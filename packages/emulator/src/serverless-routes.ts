// The serverless endpoint routes (platform-notes, "Serverless endpoints"): requests checked with the client
// package's schemas, against the limit ranges and the account's quota, as the platform would; refusals are 400s
// naming the field.
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  CreateEndpointRequest,
  DeleteEndpointBody,
  type EndpointConfig,
  EndpointIdRequest,
  EndpointLimits,
  FIXED_ON_UPDATE,
  formatIssues,
  ListEndpointsRequest,
  outsideEndpointLimits,
  type PlatformPaths,
  UpdateEndpointRequest,
} from '@platform-ops/client';
import { parseOr400, sendInvalid, sendPlatformError } from './http';
import type { EndpointProblem, EndpointStore } from './serverless-endpoints';
import { parseEndpointMarkers } from './serverless-markers';

/** Refusals of a config, fields under `prefix`: a quota is its own reason, so a client can tell it from a typo. */
function refuse(reply: FastifyReply, problems: EndpointProblem[], prefix: string): FastifyReply {
  const issues = problems.map(({ field, rule }) => ({ field: [prefix, field].filter(Boolean).join('.'), rule }));
  if (!problems.every((p) => p.quota)) return sendInvalid(reply, issues);
  return sendPlatformError(reply, 400, 'ENDPOINT_QUOTA_EXCEEDED', formatIssues(issues), { issues });
}

const numeric = (query: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
  );

export function registerServerlessRoutes(
  app: FastifyInstance,
  deps: { endpoints: EndpointStore; paths: PlatformPaths },
): void {
  const { endpoints, paths } = deps;
  const notFound = (reply: FastifyReply, id: string) =>
    sendPlatformError(reply, 404, 'ENDPOINT_NOT_FOUND', `endpoint ${id} not found`);
  const limits = () => EndpointLimits.parse(endpoints.settings.limits);
  // What the config itself breaks: the limit ranges and the image markers.
  const checks = (config: EndpointConfig): EndpointProblem[] => [
    // Each reads "<field> must …": the field goes where a refusal names it.
    ...outsideEndpointLimits(config, limits()).map((p) => {
      const [field, ...rule] = p.split(' ');
      return { field, rule: rule.join(' ') };
    }),
    ...parseEndpointMarkers(config.image.image).issues,
  ];

  app.get(paths.endpointLimits, (_request, reply) => reply.send(endpoints.settings.limits));

  app.post(paths.createEndpoint, (request, reply) => {
    const body = parseOr400(reply, CreateEndpointRequest, request.body);
    if (!body) return reply;
    const problems = [...checks(body.endpoint), ...endpoints.problems(body.endpoint)];
    if (problems.length > 0) return refuse(reply, problems, 'endpoint');
    return reply.send(endpoints.create(body.endpoint, request.caller));
  });

  app.get(paths.listEndpoints, (request, reply) => {
    const query = parseOr400(reply, ListEndpointsRequest, numeric(request.query as Record<string, unknown>));
    if (!query) return reply;
    // Pages count from 1; 0, which the schema lets through, reads as the first page.
    return reply.send(endpoints.page(query.pageSize, Math.max(1, query.pageNum)));
  });

  app.get(paths.getEndpoint, (request, reply) => {
    const query = parseOr400(reply, EndpointIdRequest, request.query);
    if (!query) return reply;
    const e = endpoints.find(query.id);
    return e ? reply.send({ endpoint: endpoints.view(e) }) : notFound(reply, query.id);
  });

  app.post(paths.updateEndpoint, (request, reply) => {
    const body = parseOr400(reply, UpdateEndpointRequest, request.body);
    if (!body) return reply;
    const { id, ...config } = body;
    const e = endpoints.find(id);
    if (!e || e.deletedAt !== undefined) return notFound(reply, id);
    const now = { appName: endpoints.appName(e), products: e.config.products, rootfsSize: e.config.rootfsSize };
    const changed = FIXED_ON_UPDATE.filter(
      (f) => config[f] !== undefined && JSON.stringify(config[f]) !== JSON.stringify(now[f]),
    );
    const fixed = changed.map((f) => ({ field: f, rule: 'cannot change after the endpoint is created' }));
    const problems = [...fixed, ...checks(config), ...(fixed.length > 0 ? [] : endpoints.problems(config, e))];
    if (problems.length > 0) return refuse(reply, problems, '');
    endpoints.update(e, { ...config, appName: e.config.appName });
    return reply.send({});
  });

  // The reference sends the id in a field called `name`; a repeat, or an endpoint already terminating, is a 400.
  app.post(paths.deleteEndpoint, (request, reply) => {
    const body = parseOr400(reply, DeleteEndpointBody, request.body);
    if (!body) return reply;
    const e = endpoints.find(body.name);
    if (!e || e.deletedAt !== undefined) {
      return sendPlatformError(reply, 400, 'ENDPOINT_NOT_FOUND', `endpoint ${body.name} does not exist or is deleting`);
    }
    endpoints.delete(e);
    return reply.send({});
  });
}
