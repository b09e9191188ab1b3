import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RESOURCE_ROUTE, ResourceRoute, RouteInput } from './resource.decorator';
import { ResourceServices } from '../extensions/resource-services';
import type { ResourceService } from '../resources/resource.service';

type RouteRequest = FastifyRequest<{
  Params: RouteInput['params'];
  Querystring: RouteInput['query'];
  Body: unknown;
}>;

/**
 * Serves the generated routes of every @Resource controller with a Fastify handler of their own, in place of
 * Nest's: each is its route's `serve` (resource.decorator.ts's ROUTES), one call into its resource service,
 * so Nest's per-request pipeline (router proxy, execution context, parameter pipes, response handling) only
 * cost time. Nest still registers the routes (its router, the OpenAPI document) and still handles the routes
 * a controller writes itself; the request pipeline's stages run around either, and errors take the same way
 * out as any other handler's, through the app's exception filter. Call before the app is initialised.
 */
export function serveResourceRoutes(app: NestFastifyApplication): void {
  const services = app.get(ResourceServices);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (options) => {
      const resource = resourceRouteOf(options.config);
      if (resource) options.handler = handlerOf(services, resource) as typeof options.handler;
    });
}

function handlerOf(services: ResourceServices, { entity, route }: ResourceRoute) {
  let resolved: ResourceService | undefined;
  const service = () => (resolved ??= services.for(entity));
  // As Nest's adapter does: find-my-way matches an empty segment for `:uuid`, which is no route at all.
  const byUuid = route.reads.includes('uuid');
  const status = route.status;
  return (request: RouteRequest, reply: FastifyReply) => {
    if (byUuid && request.params.uuid === '') return reply.callNotFound();
    // An error's status is the exception filter's, whatever was set here.
    if (status) void reply.code(status);
    return route.serve(service(), request);
  };
}

function resourceRouteOf(config: unknown): ResourceRoute | undefined {
  return (config as Record<string, ResourceRoute | undefined> | undefined)?.[RESOURCE_ROUTE];
}

/**
 * Whether a route (by its Fastify config) is a resource's generated create: it reads and checks its body,
 * then writes, and does nothing else before its first statement.
 */
export function isResourceCreate(config: unknown): boolean {
  return resourceRouteOf(config)?.route.method === 'create';
}
