// The serverless endpoint routes (platform-notes, "Serverless endpoints"): requests checked with the client
// package's schemas and against the limit ranges, as the platform would; refusals are 400s naming the field.
import type { FastifyInstance } from 'fastify';
import {
  CreateEndpointRequest,
  DeleteEndpointBody,
  EndpointIdRequest,
  EndpointLimits,
  FIXED_ON_UPDATE,
  ListEndpointsRequest,
  outsideEndpointLimits,
  type PlatformPaths,
  UpdateEndpointRequest,
} from '@platform-ops/client';
import { parseOr400, sendInvalid, sendPlatformError } from './http';
import type { EndpointStore } from './serverless-endpoints';

const numeric = (query: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
  );

export function registerServerlessRoutes(
  app: FastifyInstance,
  deps: { endpoints: EndpointStore; paths: PlatformPaths },
): void {
  const { endpoints, paths } = deps;
  const notFound = (reply: Parameters<typeof sendPlatformError>[0], id: string) =>
    sendPlatformError(reply, 404, 'ENDPOINT_NOT_FOUND', `endpoint ${id} not found`);
  const limits = () => EndpointLimits.parse(endpoints.settings.limits);

  app.get(paths.endpointLimits, (_request, reply) => reply.send(endpoints.settings.limits));

  app.post(paths.createEndpoint, (request, reply) => {
    const body = parseOr400(reply, CreateEndpointRequest, request.body);
    if (!body) return reply;
    const outside = outsideEndpointLimits(body.endpoint, limits());
    const issues = [
      ...outside.map((p) => ({ field: `endpoint.${p.split(' ')[0]}`, rule: p })),
      ...endpoints.problems(body.endpoint).map((i) => ({ ...i, field: `endpoint.${i.field}` })),
    ];
    if (issues.length > 0) return sendInvalid(reply, issues);
    return reply.send(endpoints.create(body.endpoint, request.caller));
  });

  app.get(paths.listEndpoints, (request, reply) => {
    const query = parseOr400(reply, ListEndpointsRequest, numeric(request.query as Record<string, unknown>));
    if (!query) return reply;
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
    const changed = FIXED_ON_UPDATE.filter(
      (f) => config[f] !== undefined && JSON.stringify(config[f]) !== JSON.stringify(e.config[f]),
    );
    const issues = [
      ...changed.map((f) => ({ field: f, rule: 'cannot change after the endpoint is created' })),
      ...outsideEndpointLimits(config, limits()).map((p) => ({ field: p.split(' ')[0], rule: p })),
      ...(config.name !== e.config.name
        ? [{ field: 'name', rule: 'cannot change after the endpoint is created' }]
        : []),
      ...endpoints.problems(config, e),
    ];
    if (issues.length > 0) return sendInvalid(reply, issues);
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
