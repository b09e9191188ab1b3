import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addRouteConfig } from './access.hook';
import { RESOURCE_ROUTE, ResourceRoute } from './resource.decorator';
import { ResourceServices } from '../extensions/resource-services';
import type { ResourceService } from '../resources/resource.service';

const CONFIG_KEY = 'wharfResource';

type RouteRequest = FastifyRequest<{
  Params: { uuid: string };
  Querystring: Record<string, unknown>;
  Body: unknown;
}>;

/**
 * Serves the generated routes of every @Resource controller with a Fastify handler of their own, in place of
 * Nest's: each is one call into its resource service, so Nest's per-request pipeline (router proxy, execution
 * context, parameter pipes, response handling) only cost time. Nest still registers the routes (its router,
 * the OpenAPI document) and still handles the routes a controller writes itself; the caller is through
 * configureAccess's hook first, and errors take the same way out as any other handler's, through the app's
 * exception filter. Call before the app is initialised.
 */
export function serveResourceRoutes(app: NestFastifyApplication): void {
  addRouteConfig(app, (_controller, handler) => {
    const route = Reflect.getMetadata(RESOURCE_ROUTE, handler) as ResourceRoute | undefined;
    return route ? { [CONFIG_KEY]: route } : {};
  });
  const services = app.get(ResourceServices);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (options) => {
      const route = (options.config as Record<string, ResourceRoute | undefined> | undefined)?.[CONFIG_KEY];
      if (route) options.handler = handlerOf(services, route) as typeof options.handler;
    });
}

function handlerOf(services: ResourceServices, { entity, method }: ResourceRoute) {
  let resolved: ResourceService | undefined;
  const service = () => (resolved ??= services.for(entity));
  switch (method) {
    case 'list':
      return (request: RouteRequest) => service().listJson(request.query);
    case 'find':
      return withUuid((request) => service().findJson(request.params.uuid));
    case 'create':
      return async (request: RouteRequest, reply: FastifyReply) => {
        const created = await service().createJson(request.body);
        void reply.code(201);
        return created;
      };
    case 'update':
    case 'patch':
      return withUuid((request) => service().updateJson(request.params.uuid, request.body));
    case 'remove':
      return withUuid((request) => service().remove(request.params.uuid));
  }
}

/**
 * Whether a route (by its Fastify config) is a resource's generated create: it reads and checks its body,
 * then writes, and does nothing else before its first statement.
 */
export function isResourceCreate(config: unknown): boolean {
  return (config as Record<string, ResourceRoute | undefined> | undefined)?.[CONFIG_KEY]?.method === 'create';
}

/** As Nest's adapter does: find-my-way matches an empty segment for `:uuid`, which is no route at all. */
function withUuid(handle: (request: RouteRequest) => Promise<unknown>) {
  return (request: RouteRequest, reply: FastifyReply) =>
    request.params.uuid === '' ? reply.callNotFound() : handle(request);
}
