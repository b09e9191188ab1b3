import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addRouteConfig } from '../auth/access.hook';
import { RESOURCE_ROUTE, ResourceRoute } from './resource.decorator';
import { ResourceServices } from './resource-services';

const CONFIG_KEY = 'wharfResource';

type RouteRequest = FastifyRequest<{
  Params: { uuid: string };
  Querystring: Record<string, unknown>;
  Body: unknown;
}>;

/**
 * Serves the generated routes of every @Resource controller from a Fastify hook, once the caller is through
 * configureAccess's: each is one call into its resource service, so Nest's per-request pipeline (router
 * proxy, execution context, parameter pipes, response handling) only cost time. Nest still registers the
 * routes (its router, the OpenAPI document); its handler runs for the routes a controller writes itself.
 * Errors take the same way out as any other hook's, through the app's exception filter. Call before the app
 * is initialised, after configureAccess.
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
    .addHook('preHandler', async (request: RouteRequest, reply: FastifyReply) => {
      const route = (request.routeOptions.config as unknown as Record<string, ResourceRoute | undefined>)[
        CONFIG_KEY
      ];
      if (!route) return;
      const service = services.for(route.entity);
      switch (route.method) {
        case 'list':
          return reply.send(await service.listJson(request.query));
        case 'find':
          return reply.send(await service.findJson(request.params.uuid));
        case 'create':
          return reply.code(201).send(await service.createJson(request.body));
        case 'update':
        case 'patch':
          return reply.send(await service.updateJson(request.params.uuid, request.body));
        case 'remove':
          return reply.send(await service.remove(request.params.uuid));
      }
    });
}
