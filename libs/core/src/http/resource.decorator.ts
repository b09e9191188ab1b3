import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Type,
} from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ResourceControllerDocs, ResourceRouteDocs } from '../openapi/resource-docs.decorator';
import { ResourceRouteMethod } from '../openapi/openapi-names';
import { pluralAlias, pluralPath } from '../resources/naming';
import { resourceModel } from '../resources/resource-model.decorator';
import { ResourceServices } from '../extensions/resource-services';
import type { ResourceService } from '../resources/resource.service';
import {
  type ResourceRouteKind,
  markResourceController,
  resourceControllerInfo,
} from '../resources/resource-controller';

export type { ResourceRouteKind } from '../resources/resource-controller';
/** The Fastify route config key of a generated route: which resource and route it serves (ResourceRoute). */
export const RESOURCE_ROUTE = 'wharfResource';

/** What a generated route reads of its request: a Fastify request is one, and so is what Nest hands over. */
export interface RouteInput {
  params: { uuid: string };
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * One generated route, declared once: its Nest registration (decorator, parameters, status; Nest's router
 * and the OpenAPI document read them) and `serve`, the route itself: one call into the resource service. A
 * Fastify handler made of `serve` replaces Nest's when the route is registered (serveResourceRoutes).
 */
export interface ResourceRouteDef {
  method: ResourceRouteMethod;
  kind: ResourceRouteKind;
  decorate: MethodDecorator;
  /** The request parts its Nest method takes, in order. */
  reads: ('uuid' | 'query' | 'body')[];
  status?: number;
  serve: (service: ResourceService, input: RouteInput) => Promise<unknown>;
}

/** What a generated route serves: in its Fastify route config under RESOURCE_ROUTE. */
export interface ResourceRoute {
  entity: Type;
  route: ResourceRouteDef;
}
const SERVICES = Symbol('wharf:resource-services');

interface ResourceHandlers {
  [SERVICES]: ResourceServices;
}

export interface ResourceOptions {
  /** The generated routes to serve (default: all five); e.g. `['list', 'find']` for a read-only resource. */
  routes?: ResourceRouteKind[];
}

const update = (service: ResourceService, { params, body }: RouteInput) =>
  service.updateJson(params.uuid, body);

/** The five routes of a resource (PATCH as an alias of PUT). */
const ROUTES: ResourceRouteDef[] = [
  { method: 'list', kind: 'list', decorate: Get(), reads: ['query'], serve: (s, i) => s.listJson(i.query) },
  {
    method: 'find',
    kind: 'find',
    decorate: Get(':uuid'),
    reads: ['uuid'],
    serve: (s, i) => s.findJson(i.params.uuid),
  },
  {
    method: 'create',
    kind: 'create',
    decorate: Post(),
    reads: ['body'],
    status: 201,
    serve: (s, i) => s.createJson(i.body),
  },
  { method: 'update', kind: 'update', decorate: Put(':uuid'), reads: ['uuid', 'body'], serve: update },
  { method: 'patch', kind: 'update', decorate: Patch(':uuid'), reads: ['uuid', 'body'], serve: update },
  {
    method: 'remove',
    kind: 'remove',
    decorate: Delete(':uuid'),
    reads: ['uuid'],
    status: 200,
    serve: (s, i) => s.remove(i.params.uuid),
  },
];

const PARAMETERS = { uuid: Param('uuid'), query: Query(), body: Body() } as const;

/** The Nest method of a generated route: its parameters made into the route's input. */
function nestMethod(entity: Type, route: ResourceRouteDef) {
  return function (this: ResourceHandlers, ...args: unknown[]) {
    const input: RouteInput = { params: { uuid: '' }, query: {}, body: undefined };
    route.reads.forEach((part, index) => {
      if (part === 'uuid') input.params.uuid = args[index] as string;
      else if (part === 'query') input.query = args[index] as Record<string, unknown>;
      else input.body = args[index];
    });
    return route.serve(this[SERVICES].for(entity), input);
  };
}

/**
 * Binds a controller to a resource, named by its entity class so that a typo cannot compile, and defines
 * its REST routes when the class is defined (like @nestjsx/crud):
 * `@Resource(Warehouse) export class WarehouseController {}` serves
 * `GET|POST /warehouses`, `GET|PUT|PATCH|DELETE /warehouses/:uuid` under the extension's namespace.
 * Methods the class defines itself are left alone, and its own routes sit beside these. Each generated
 * route carries its OpenAPI description (bodies and records are components built from the registry).
 */
export function Resource(entity: Type, options: ResourceOptions = {}): ClassDecorator {
  const served = new Set(options.routes ?? ROUTES.map((route) => route.kind));
  return (target) => {
    const name = resourceModel(entity)?.name;
    if (!name) {
      throw new Error(
        `@Resource(${entity?.name ?? String(entity)}) on ${target.name}: not an entity with @ResourceModel (or imported in a cycle)`,
      );
    }
    const prototype = target.prototype as Record<string, unknown>;
    markResourceController(target, { entity, routes: [...served] });
    Inject(ResourceServices)(prototype, SERVICES);
    for (const route of ROUTES) {
      if (!served.has(route.kind) || Object.prototype.hasOwnProperty.call(prototype, route.method)) continue;
      const handler = nestMethod(entity, route);
      Object.defineProperty(handler, 'name', { value: route.method });
      Object.defineProperty(prototype, route.method, {
        value: handler,
        writable: true,
        configurable: true,
      });
      const descriptor = Object.getOwnPropertyDescriptor(prototype, route.method)!;
      route.reads.forEach((part, index) => PARAMETERS[part](prototype, route.method, index));
      Reflect.defineMetadata(
        'design:paramtypes',
        route.reads.map(() => Object),
        prototype,
        route.method,
      );
      route.decorate(prototype, route.method, descriptor);
      RouteConfig({ [RESOURCE_ROUTE]: { entity, route } satisfies ResourceRoute })(
        prototype,
        route.method,
        descriptor,
      );
      if (route.status) HttpCode(route.status)(prototype, route.method, descriptor);
      ResourceRouteDocs(route.method, name)(prototype, route.method, descriptor);
    }
    ResourceControllerDocs(name)(target);
    const alias = pluralAlias(name);
    Controller(alias ? [pluralPath(name), alias] : pluralPath(name))(target);
  };
}

/** The entity class a `@Resource` controller serves. */
export function resourceEntity(controller: object): Type | undefined {
  return resourceControllerInfo(controller)?.entity;
}

/** The resource name a `@Resource` controller serves. */
export function resourceName(controller: object): string | undefined {
  const entity = resourceEntity(controller);
  return entity ? resourceModel(entity)?.name : undefined;
}
